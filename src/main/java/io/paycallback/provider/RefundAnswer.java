package io.paycallback.provider;

import io.paycallback.channel.Notice;

import java.util.Optional;

/**
 * The provider accepted a refund.
 *
 * @param channelRefundId the provider's id of it, when the answer names one
 * @param settled         the refund's final state when the answer already tells it; it is then stored like a refund
 *                        notice, under the same key, so whichever of the two comes first counts, once
 * @param body            the verified answer
 */
public record RefundAnswer(String channelRefundId, Optional<Notice.Refund> settled, byte[] body) {
}
