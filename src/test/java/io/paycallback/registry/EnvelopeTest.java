package io.paycallback.registry;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EnvelopeTest {

    private static final String OLD = "old:" + Base64.getEncoder().encodeToString(new byte[32]);
    private static final String NEW = "new:" + Base64.getEncoder().encodeToString("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
    private static final byte[] ROW = StoredAccount.identity("shop-1", io.paycallback.trade.ChannelId.STRIPE);
    private static final byte[] SECRET = "{\"apiKey\":\"sk_test_x\"}".getBytes(StandardCharsets.UTF_8);

    @Test
    void sealedSecretsOpenWithTheirKeyAndRowOnly() {
        KeyEncryptionKeys keys = KeyEncryptionKeys.parse(List.of(OLD), "test");
        Envelope.Sealed sealed = Envelope.seal(SECRET, ROW, keys.active().orElseThrow());

        assertThat(sealed.kekId()).isEqualTo("old");
        assertThat(new String(sealed.ciphertext(), StandardCharsets.ISO_8859_1)).doesNotContain("sk_test_x");
        assertThat(Envelope.open(sealed, ROW, keys)).isEqualTo(SECRET);
        byte[] otherRow = StoredAccount.identity("shop-2", io.paycallback.trade.ChannelId.STRIPE);
        assertThatThrownBy(() -> Envelope.open(sealed, otherRow, keys)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Envelope.open(sealed, ROW, KeyEncryptionKeys.parse(List.of(NEW), "test")))
                .hasMessageContaining("'old' is not configured");
    }

    @Test
    void aTamperedCiphertextDoesNotOpen() {
        KeyEncryptionKeys keys = KeyEncryptionKeys.parse(List.of(OLD), "test");
        Envelope.Sealed sealed = Envelope.seal(SECRET, ROW, keys.active().orElseThrow());
        byte[] tampered = sealed.ciphertext().clone();
        tampered[tampered.length - 1] ^= 1;

        assertThatThrownBy(() -> Envelope.open(new Envelope.Sealed("old", sealed.wrappedKey(), tampered), ROW, keys))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRewrapMovesTheDataKeyUnderTheNewKeyAndLeavesTheCiphertext() {
        KeyEncryptionKeys both = KeyEncryptionKeys.parse(List.of(NEW, OLD), "test");
        Envelope.Sealed sealed = Envelope.seal(SECRET, ROW, both.find("old").orElseThrow());

        Envelope.Sealed rewrapped = Envelope.rewrap(sealed, ROW, both, both.active().orElseThrow());

        assertThat(rewrapped.kekId()).isEqualTo("new");
        assertThat(rewrapped.ciphertext()).isEqualTo(sealed.ciphertext());
        assertThat(Envelope.open(rewrapped, ROW, KeyEncryptionKeys.parse(List.of(NEW), "test"))).isEqualTo(SECRET);
    }

    @Test
    void keyEncryptionKeysAreCheckedWithoutShowingThem() {
        assertThatThrownBy(() -> KeyEncryptionKeys.parse(List.of("k1:" + Base64.getEncoder().encodeToString(new byte[16])), "setting"))
                .hasMessageContaining("setting: key 'k1' is 16 bytes");
        assertThatThrownBy(() -> KeyEncryptionKeys.parse(List.of(OLD, OLD), "setting")).hasMessageContaining("twice");
        assertThatThrownBy(() -> KeyEncryptionKeys.parse(List.of("no-colon"), "setting")).hasMessageContaining("id:base64");
        assertThat(KeyEncryptionKeys.parse(List.of("# comment", "", NEW), "s").ids()).containsExactly("new");
        assertThat(KeyEncryptionKeys.parse(List.of(NEW), "s").toString()).doesNotContain(NEW.substring(4));
    }
}
