package io.paycallback.channel;

import java.util.Map;

/**
 * Whose callbacks a provider's keys receive: a merchant's own, whose notices are all that merchant's, or a platform's,
 * whose notices each name one of its sub-merchants. Stated where the keys are configured, never inferred from how many
 * sub-merchants a platform has: a platform with none yet holds every notice instead of taking them as its own.
 */
public sealed interface Endpoint {

    /** A merchant's own endpoint: its notices are the merchant's of the path. */
    Endpoint DIRECT = new Direct();

    record Direct() implements Endpoint {
    }

    /**
     * A platform's endpoint.
     *
     * @param subMerchants the provider's id of each sub-merchant served here ({@code acct_...}, {@code sub_mchid},
     *                     {@code auth_app_id}) to its merchant id; empty while the platform has none
     */
    record Platform(Map<String, String> subMerchants) implements Endpoint {

        public Platform {
            subMerchants = Map.copyOf(subMerchants);
        }

        /**
         * The merchant of the sub-merchant a notice names; a notice naming none of this platform's is held, so that
         * the provider keeps it alive until that sub-merchant is configured.
         *
         * @param unknown the reason the notice is held for
         */
        public String merchantOf(String subMerchantId, String unknown) throws Rejection {
            String merchantId = subMerchantId == null ? null : subMerchants.get(subMerchantId);
            if (merchantId == null) {
                throw Rejection.malformed(unknown);
            }
            return merchantId;
        }
    }
}
