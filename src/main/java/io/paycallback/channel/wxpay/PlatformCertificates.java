package io.paycallback.channel.wxpay;

import java.security.PublicKey;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * WeChat Pay's platform certificates as a merchant (or a partner) downloads them ({@code GET /v3/certificates}): the
 * set held now, replaced whole by each download, and a way to ask for a download when a notice names a serial the set
 * lacks. The channel only reads it; the download is made outside the channel.
 */
public interface PlatformCertificates {

    /** For a merchant that pins its keys and downloads nothing. */
    PlatformCertificates NONE = new PlatformCertificates() {
        @Override
        public Optional<PublicKey> key(String serial) {
            return Optional.empty();
        }

        @Override
        public CompletionStage<Boolean> learn(String serial) {
            return CompletableFuture.completedFuture(false);
        }

        @Override
        public Set<String> serials() {
            return Set.of();
        }

        @Override
        public String toString() {
            return "none";
        }
    };

    /** The public key of the certificate with this serial, in the set held now. */
    Optional<PublicKey> key(String serial);

    /**
     * Asks for a download because a notice names {@code serial}, which the set lacks. Never blocks: the answer
     * completes once the download is over, or at once when one was made too recently to make another.
     *
     * @return whether the set holds {@code serial} then
     */
    CompletionStage<Boolean> learn(String serial);

    /** The serials of the set held now. */
    Set<String> serials();
}
