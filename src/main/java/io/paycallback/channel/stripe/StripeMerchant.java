package io.paycallback.channel.stripe;

import java.util.List;
import java.util.regex.Pattern;

/**
 * One merchant's Stripe webhook endpoint.
 *
 * @param webhookSecrets {@code whsec_...} endpoint secrets; several at once while one is being rolled
 */
public record StripeMerchant(List<String> webhookSecrets) {

    /** The whole signing secret as Stripe shows it for the endpoint, prefix included. */
    private static final Pattern SECRET = Pattern.compile("whsec_[A-Za-z0-9_+/=-]{16,}");

    public StripeMerchant {
        if (webhookSecrets == null || webhookSecrets.isEmpty() || webhookSecrets.stream().anyMatch(s -> s == null || s.isBlank())) {
            throw new IllegalArgumentException("webhook-secrets must hold at least one non-empty secret");
        }
        if (webhookSecrets.stream().anyMatch(secret -> !SECRET.matcher(secret.strip()).matches())) {
            throw new IllegalArgumentException("webhook-secrets holds a value that is not an endpoint's signing secret:"
                    + " each is the whole whsec_... string Stripe shows for the endpoint");
        }
        webhookSecrets = List.copyOf(webhookSecrets);
    }

    @Override
    public String toString() {
        return "StripeMerchant[" + webhookSecrets.size() + " secrets]";
    }
}
