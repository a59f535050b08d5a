package io.paycallback.registry;

import io.paycallback.channel.Channel;
import io.paycallback.provider.ProviderClients;
import io.paycallback.trade.ChannelId;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The registry's rules for each change, on the registry as it is: no database. */
class EditsTest {

    private static final String SECRET_A = "whsec_editsTestSecretA0123456789";
    private static final String SECRET_B = "whsec_editsTestSecretB0123456789";
    private static final Instant NOW = Instant.parse("2026-12-07T10:00:00Z");

    private static RegistryContent withPlatform() {
        PlatformEntry platform = new PlatformEntry("mkt", true, Source.DATABASE, Map.of(ChannelId.STRIPE,
                new StripeModule.Keys(List.of(new RotatingKey(Fingerprint.of(SECRET_A), SECRET_A, Optional.empty())),
                        Optional.of("sk_test_platform"))));
        MerchantEntry merchant = new MerchantEntry("shop", true, Source.DATABASE, Map.of(ChannelId.STRIPE,
                new Account.SubMerchant(ChannelId.STRIPE, "mkt", "acct_1", Optional.empty())));
        MerchantEntry configured = new MerchantEntry("default", true, Source.CONFIGURATION, Map.of());
        return new RegistryContent(Map.of("shop", merchant, "default", configured), Map.of("mkt", platform));
    }

    private static AccountRequest stripeSecrets(List<String> secrets) {
        return new AccountRequest(null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, secrets, null);
    }

    @Test
    void aNewIdMustBeFreeAcrossMerchantsAndPlatforms() {
        assertThat(Edits.create(OwnerKind.MERCHANT, "mkt").apply(withPlatform())).isInstanceOf(Edit.Refused.class);
        assertThat(Edits.create(OwnerKind.PLATFORM, "shop").apply(withPlatform())).isInstanceOf(Edit.Refused.class);
        assertThat(Edits.create(OwnerKind.MERCHANT, "no spaces").apply(withPlatform())).isInstanceOf(Edit.Refused.class);
        assertThat(Edits.create(OwnerKind.MERCHANT, "shop-2").apply(withPlatform())).isInstanceOf(Edit.Merchant.class);
    }

    @Test
    void aRotationAddsBesideTheOldAndNeverRetiresTheLastLiveKey() {
        Edit added = Edits.addKey(OwnerKind.PLATFORM, "mkt", ChannelId.STRIPE, null, SECRET_B).apply(withPlatform());
        PlatformEntry rotated = ((Edit.Platform) added).after();
        StripeModule.Keys keys = (StripeModule.Keys) rotated.keys().get(ChannelId.STRIPE);
        assertThat(keys.webhookSecrets()).extracting(RotatingKey::value).containsExactly(SECRET_A, SECRET_B);
        assertThat(keys.apiKey()).contains("sk_test_platform");

        RegistryContent afterAdd = withPlatform().with(rotated);
        Edit retired = Edits.retireKey(OwnerKind.PLATFORM, "mkt", ChannelId.STRIPE, Fingerprint.of(SECRET_A), NOW)
                .apply(afterAdd);
        StripeModule.Keys left = (StripeModule.Keys) ((Edit.Platform) retired).after().keys().get(ChannelId.STRIPE);
        assertThat(left.webhookSecrets().get(0).liveAt(NOW)).isFalse();
        assertThat(left.webhookSecrets().get(1).liveAt(NOW)).isTrue();

        assertThat(Edits.retireKey(OwnerKind.PLATFORM, "mkt", ChannelId.STRIPE, Fingerprint.of(SECRET_A), NOW)
                .apply(withPlatform())).isInstanceOf(Edit.Refused.class);
        assertThat(Edits.addKey(OwnerKind.PLATFORM, "mkt", ChannelId.STRIPE, null, SECRET_A).apply(withPlatform()))
                .isInstanceOf(Edit.Refused.class);
    }

    @Test
    void aSavedAccountKeepsTheSecretsItLeavesOut() {
        Edit saved = Edits.putAccount(OwnerKind.PLATFORM, "mkt", ChannelId.STRIPE, stripeSecrets(null)).apply(withPlatform());
        StripeModule.Keys keys = (StripeModule.Keys) ((Edit.Platform) saved).after().keys().get(ChannelId.STRIPE);
        assertThat(keys.webhookSecrets()).extracting(RotatingKey::value).containsExactly(SECRET_A);
        assertThat(keys.apiKey()).contains("sk_test_platform");
    }

    @Test
    void anotherProvidersFieldIsRefusedByName() {
        AccountRequest wxpayField = new AccountRequest(null, null, null, null, "1900000109", null, null, null, null, null,
                null, null, null, null, null, null, List.of(SECRET_A), null);
        Edit refused = Edits.putAccount(OwnerKind.MERCHANT, "shop", ChannelId.STRIPE, wxpayField).apply(withPlatform());
        assertThat(((Edit.Refused) refused).reason()).contains("mchid is not a field of this stripe account");
    }

    @Test
    void enablingWhatIsEnabledChangesNothing() {
        assertThat(Edits.enable(OwnerKind.MERCHANT, "shop", true).apply(withPlatform())).isInstanceOf(Edit.Unchanged.class);
        assertThat(Edits.enable(OwnerKind.MERCHANT, "nobody", false).apply(withPlatform())).isInstanceOf(Edit.NotFound.class);
    }

    @Test
    void whatIsServedLeavesOutDisabledOwnersAndTheSubMerchantsOfADisabledPlatform() {
        RegistryContent content = withPlatform();
        assertThat(stripeServes(content)).contains("mkt", "shop");
        RegistryContent platformOff = content.with(content.platform("mkt").orElseThrow().enabled(false));
        assertThat(stripeServes(platformOff)).doesNotContain("mkt", "shop");
        RegistryContent merchantOff = content.with(content.merchant("shop").orElseThrow().enabled(false));
        assertThat(stripeServes(merchantOff)).contains("mkt").doesNotContain("shop");
    }

    private static List<String> stripeServes(RegistryContent content) {
        ProviderClients.Context context = new ProviderClients.Context(null, null, Clock.systemUTC(), Duration.ofSeconds(5),
                "http://127.0.0.1:9", "http://127.0.0.1:9", "http://127.0.0.1:9", null, null, null);
        Channel stripe = Serving.build(content, NOW, Clock.systemUTC(), context, ParsedKeys.none()).channels().get(ChannelId.STRIPE);
        return java.util.stream.Stream.of("mkt", "shop").filter(stripe::serves).toList();
    }
}
