package io.paycallback.channel.stripe;

import java.util.List;

/**
 * One merchant's Stripe webhook endpoint.
 *
 * @param webhookSecrets {@code whsec_...} endpoint secrets; several at once while one is being rolled
 */
public record StripeMerchant(List<String> webhookSecrets) {

    public StripeMerchant {
        if (webhookSecrets == null || webhookSecrets.isEmpty() || webhookSecrets.stream().anyMatch(s -> s == null || s.isBlank())) {
            throw new IllegalArgumentException("webhook-secrets must hold at least one non-empty secret");
        }
        webhookSecrets = List.copyOf(webhookSecrets);
    }

    @Override
    public String toString() {
        return "StripeMerchant[" + webhookSecrets.size() + " secrets]";
    }
}
