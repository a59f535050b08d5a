package io.paycallback.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paycallback.channel.Channel;
import io.paycallback.channel.stripe.StripeChannel;
import io.paycallback.channel.stripe.StripeMerchant;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.provider.ProviderApi;
import io.paycallback.provider.ProviderClients;
import io.paycallback.provider.StripeClient;
import io.paycallback.trade.ChannelId;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/** Stripe: a merchant's own endpoint, or a Connect platform's for its connected accounts ({@code acct_...}). */
final class StripeModule implements ProviderModule<StripeModule.Keys> {

    private static final Pattern API_KEY = Pattern.compile("(sk|rk)_[A-Za-z0-9_]+");

    /** The endpoint's signing secrets (several during a rotation, each named by its fingerprint) and the API key. */
    record Keys(List<RotatingKey> webhookSecrets, Optional<String> apiKey) implements ProviderKeys {
        Keys {
            webhookSecrets = List.copyOf(webhookSecrets);
        }

        @Override
        public ChannelId provider() {
            return ChannelId.STRIPE;
        }

        @Override
        public String toString() {
            return "Stripe[webhookSecrets=" + webhookSecrets + "]";
        }
    }

    @Override
    public ChannelId id() {
        return ChannelId.STRIPE;
    }

    @Override
    public Class<Keys> keysType() {
        return Keys.class;
    }

    @Override
    public Optional<Keys> direct(PayCallbackConfig.Merchant merchant) {
        return merchant.stripe().map(StripeModule::keys);
    }

    @Override
    public Optional<Account.SubMerchant> subMerchant(PayCallbackConfig.Merchant merchant) {
        return merchant.stripeConnect().map(connect -> new Account.SubMerchant(ChannelId.STRIPE, connect.platform(),
                connect.account(), Optional.empty()));
    }

    @Override
    public Optional<Keys> platform(PayCallbackConfig.Platform platform) {
        return platform.stripe().map(StripeModule::keys);
    }

    private static Keys keys(PayCallbackConfig.Stripe keys) {
        return new Keys(secrets(keys.webhookSecrets()), keys.apiKey());
    }

    private static List<RotatingKey> secrets(List<String> values) {
        List<RotatingKey> secrets = new ArrayList<>();
        values.forEach(secret -> secrets.add(new RotatingKey(Fingerprint.of(secret), secret.strip(), Optional.empty())));
        return secrets;
    }

    @Override
    public String subMerchantSection() {
        return "stripe-connect";
    }

    @Override
    public String subIdProperty() {
        return "account";
    }

    @Override
    public Optional<String> subIdProblem(String subId) {
        return StripeMerchant.isAccountId(subId) ? Optional.empty() : Optional.of("is not a Stripe account id (acct_...)");
    }

    @Override
    public void write(Keys keys, ObjectNode settings, ObjectNode secrets) {
        secrets.set("webhookSecrets", Json.rotating(keys.webhookSecrets()));
        Json.put(secrets, "apiKey", keys.apiKey());
    }

    @Override
    public Keys read(JsonNode settings, JsonNode secrets) {
        return new Keys(Json.rotating(secrets.path("webhookSecrets")), Json.optional(secrets, "apiKey"));
    }

    @Override
    public List<String> requestFields() {
        return List.of("webhookSecrets", "apiKey");
    }

    @Override
    public Keys fromRequest(AccountRequest request, Optional<Keys> kept) {
        List<RotatingKey> secrets = request.webhookSecrets() != null ? secrets(request.webhookSecrets())
                : kept.map(Keys::webhookSecrets).orElse(List.of());
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException("webhookSecrets is required: at least one whsec_... secret");
        }
        return new Keys(secrets, Fields.keptIfAny(request.apiKey(), kept.flatMap(Keys::apiKey)));
    }

    @Override
    public void describe(Keys keys, Map<String, String> settings, List<OwnerView.KeyView> keyViews, Instant now) {
        keys.webhookSecrets().forEach(key -> keyViews.add(OwnerView.KeyView.rotating("webhook-secret", key, now)));
        keys.apiKey().ifPresent(key -> keyViews.add(OwnerView.KeyView.secret("api-key", key)));
    }

    @Override
    public List<RotatingKey> rotating(Keys keys) {
        return keys.webhookSecrets();
    }

    @Override
    public Keys withRotating(Keys keys, List<RotatingKey> rotating) {
        return new Keys(rotating, keys.apiKey());
    }

    @Override
    public Channel channel(List<Served<Keys>> served, Instant now, Clock clock, ProviderClients.Context context,
                           ParsedKeys parsed) {
        Map<String, StripeMerchant> merchants = new HashMap<>();
        for (Served<Keys> one : served) {
            List<String> live = one.keys().webhookSecrets().stream().filter(key -> key.liveAt(now))
                    .map(RotatingKey::value).toList();
            try {
                merchants.put(one.id(), new StripeMerchant(live, one.endpoint()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(one.section() + ".stripe: " + e.getMessage());
            }
        }
        return new StripeChannel(merchants, clock);
    }

    @Override
    public ProviderApi client(ProviderClients.Context context, Channel channel, List<Caller<Keys>> callers,
                              ParsedKeys parsed) {
        Map<String, StripeClient.Keys> merchants = new HashMap<>();
        for (Caller<Keys> caller : callers) {
            caller.keys().apiKey().ifPresent(key -> {
                String property = caller.section() + ".stripe.api-key";
                if (!API_KEY.matcher(key).matches()) {
                    throw new IllegalArgumentException(property + " is not a Stripe secret (sk_...) or restricted (rk_...) key");
                }
                merchants.put(caller.merchantId(), new StripeClient.Keys(key, caller.as().map(Account.SubMerchant::subId)));
            });
        }
        return StripeClient.of(context, merchants);
    }
}
