package io.paycallback.channel.alipay;

import java.security.PublicKey;
import java.util.List;
import java.util.Optional;

/**
 * The Alipay public keys a merchant's notices and answers verify with: the key configured (public-key mode), or in
 * public-key certificate mode the key of Alipay's certificate and of the certificates downloaded since, each by its
 * SN. Notices name no SN, so they verify with any of them; an answer names the SN it is signed with.
 */
public interface AlipayKeys {

    /** Every key held, the newest first. */
    List<PublicKey> all();

    /** The key of Alipay's certificate with this SN; empty in public-key mode, or for an SN not held. */
    Optional<PublicKey> bySn(String sn);

    /** Public-key mode: the one key an operator configures. */
    static AlipayKeys of(PublicKey key) {
        List<PublicKey> one = List.of(key);
        return new AlipayKeys() {
            @Override
            public List<PublicKey> all() {
                return one;
            }

            @Override
            public Optional<PublicKey> bySn(String sn) {
                return Optional.empty();
            }
        };
    }
}
