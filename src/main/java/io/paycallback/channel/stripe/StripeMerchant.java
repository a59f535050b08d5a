package io.paycallback.channel.stripe;

import io.paycallback.channel.Endpoint;
import io.paycallback.channel.Rejection;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One Stripe webhook endpoint: a merchant's own, or a Connect platform's, whose events each name the connected
 * account they happened on.
 *
 * @param webhookSecrets {@code whsec_...} endpoint secrets; several at once while one is being rolled
 * @param endpoint       a merchant's own, or a Connect platform's with each connected account ({@code acct_...}) we
 *                       serve to its merchant id
 */
public record StripeMerchant(List<String> webhookSecrets, Endpoint endpoint) {

    /** The whole signing secret as Stripe shows it for the endpoint, prefix included. */
    private static final Pattern SECRET = Pattern.compile("whsec_[A-Za-z0-9_+/=-]{16,}");
    /** Stripe's account ids: {@code acct_} and letters and digits. */
    private static final Pattern ACCOUNT = Pattern.compile("acct_[A-Za-z0-9]{1,64}");

    public StripeMerchant {
        if (webhookSecrets == null || webhookSecrets.isEmpty() || webhookSecrets.stream().anyMatch(s -> s == null || s.isBlank())) {
            throw new IllegalArgumentException("webhook-secrets must hold at least one non-empty secret");
        }
        if (webhookSecrets.stream().anyMatch(secret -> !SECRET.matcher(secret.strip()).matches())) {
            throw new IllegalArgumentException("webhook-secrets holds a value that is not an endpoint's signing secret:"
                    + " each is the whole whsec_... string Stripe shows for the endpoint");
        }
        webhookSecrets = List.copyOf(webhookSecrets);
        Objects.requireNonNull(endpoint, "endpoint");
    }

    /** A merchant's own endpoint. */
    public StripeMerchant(List<String> webhookSecrets) {
        this(webhookSecrets, Endpoint.DIRECT);
    }

    /** Whether this is an account id as Stripe writes them. */
    public static boolean isAccountId(String account) {
        return account != null && ACCOUNT.matcher(account).matches();
    }

    /**
     * The merchant an event on this endpoint belongs to: on a Connect endpoint, the merchant of the event's connected
     * account, which must be one we serve; on a merchant's own endpoint, the merchant of the path.
     */
    String merchantOf(String pathMerchantId, String account) throws Rejection {
        if (!(endpoint instanceof Endpoint.Platform platform)) {
            return pathMerchantId;
        }
        if (account == null) {
            throw Rejection.malformed("a Connect event names no account");
        }
        return platform.merchantOf(account, "the event's account is not a connected account configured for this platform");
    }

    @Override
    public String toString() {
        String served = endpoint instanceof Endpoint.Platform platform
                ? platform.subMerchants().size() + " connected accounts" : "direct";
        return "StripeMerchant[" + webhookSecrets.size() + " secrets, " + served + "]";
    }
}
