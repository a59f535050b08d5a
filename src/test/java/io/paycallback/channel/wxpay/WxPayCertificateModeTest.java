package io.paycallback.channel.wxpay;

import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.ChannelVerdict;
import io.paycallback.channel.Endpoint;
import io.paycallback.channel.TestKeys;
import org.junit.jupiter.api.Test;

import java.security.KeyPair;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A merchant that downloads its platform certificates: a notice verifies by a downloaded serial as by a pinned one, and
 * a serial it lacks asks its certificates to learn it (the download itself is outside the channel).
 */
class WxPayCertificateModeTest {

    private static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");
    private static final KeyPair PINNED = TestKeys.rsa();
    private static final KeyPair DOWNLOADED = TestKeys.rsa();
    private static final KeyPair NEXT = TestKeys.rsa();
    private static final String PINNED_SERIAL = "PUB_KEY_ID_0114232134912410000000000000";
    private static final String DOWNLOADED_SERIAL = "3775B6A45ACD588826D15E583A95F5DD00000001";
    private static final String NEXT_SERIAL = "5157F09EFDC096DE15EBE81A47057A7200000002";

    /** A set whose download the test plays: it learns what the test puts in {@link #next}. */
    private static final class Downloads implements PlatformCertificates {
        final Map<String, PublicKey> held = new ConcurrentHashMap<>(Map.of(DOWNLOADED_SERIAL, DOWNLOADED.getPublic()));
        final Map<String, PublicKey> next = new ConcurrentHashMap<>();
        final List<String> asked = new ArrayList<>();

        @Override
        public Optional<PublicKey> key(String serial) {
            return Optional.ofNullable(held.get(serial));
        }

        @Override
        public CompletionStage<Boolean> learn(String serial) {
            asked.add(serial);
            held.putAll(next);
            return CompletableFuture.completedFuture(held.containsKey(serial));
        }

        @Override
        public Set<String> serials() {
            return held.keySet();
        }
    }

    private final Downloads downloads = new Downloads();
    private final WxPayChannel channel = new WxPayChannel(Map.of(
            "default", new WxPayMerchant(WxPayFixture.MCHID, WxPayMerchant.apiV3Key(WxPayFixture.API_V3_KEY),
                    Map.of(PINNED_SERIAL, PINNED.getPublic()), Endpoint.DIRECT, downloads),
            "downloads-only", new WxPayMerchant(WxPayFixture.MCHID, WxPayMerchant.apiV3Key(WxPayFixture.API_V3_KEY),
                    Map.of(), Endpoint.DIRECT, downloads)),
            Clock.fixed(NOW, ZoneOffset.UTC));

    private static CallbackRequest notice(String merchantId, KeyPair key, String serial) {
        CallbackRequest signed = WxPayFixture.signed(CallbackKind.PAYMENT, key.getPrivate(), serial, NOW.getEpochSecond(),
                WxPayFixture.paymentBody(WxPayFixture.payment("SUCCESS", 100)));
        return new CallbackRequest(merchantId, signed.kind(), signed.headers(), signed.body());
    }

    @Test
    void aNoticeVerifiesByADownloadedSerialAsByAPinnedOne() {
        assertThat(channel.read(notice("default", PINNED, PINNED_SERIAL))).isInstanceOf(ChannelVerdict.Accepted.class);
        assertThat(channel.read(notice("default", DOWNLOADED, DOWNLOADED_SERIAL))).isInstanceOf(ChannelVerdict.Accepted.class);
        assertThat(channel.read(notice("downloads-only", DOWNLOADED, DOWNLOADED_SERIAL)))
                .isInstanceOf(ChannelVerdict.Accepted.class);
    }

    @Test
    void aSerialTheMerchantLacksIsRefusedUntilItsCertificatesLearnIt() {
        CallbackRequest request = notice("downloads-only", NEXT, NEXT_SERIAL);
        assertThat(channel.read(request)).isEqualTo(new ChannelVerdict.BadSignature("unknown Wechatpay-Serial"));

        downloads.next.put(NEXT_SERIAL, NEXT.getPublic());
        assertThat(channel.learnKeys(request).toCompletableFuture().join()).isTrue();

        assertThat(downloads.asked).containsExactly(NEXT_SERIAL);
        assertThat(channel.read(request)).isInstanceOf(ChannelVerdict.Accepted.class);
    }

    @Test
    void aKnownSerialWithABadSignatureAsksForNoDownload() {
        CallbackRequest forged = notice("default", TestKeys.rsa(), DOWNLOADED_SERIAL);

        assertThat(channel.read(forged)).isEqualTo(new ChannelVerdict.BadSignature("signature does not match"));
        assertThat(channel.learnKeys(forged).toCompletableFuture().join()).isFalse();
        assertThat(downloads.asked).isEmpty();
    }

    @Test
    void aMerchantThatOnlyPinsLearnsNothing() {
        WxPayChannel pinning = new WxPayChannel(Map.of("default", new WxPayMerchant(WxPayFixture.MCHID,
                WxPayMerchant.apiV3Key(WxPayFixture.API_V3_KEY), Map.of(PINNED_SERIAL, PINNED.getPublic()))),
                Clock.fixed(NOW, ZoneOffset.UTC));

        assertThat(pinning.learnKeys(notice("default", NEXT, NEXT_SERIAL)).toCompletableFuture().join()).isFalse();
    }

    @Test
    void aMerchantNeedsPinnedKeysOrDownloadedCertificates() {
        assertThatThrownBy(() -> new WxPayMerchant(WxPayFixture.MCHID, WxPayMerchant.apiV3Key(WxPayFixture.API_V3_KEY),
                Map.of(), Endpoint.DIRECT, PlatformCertificates.NONE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("public-keys is empty");
    }
}
