package io.paycallback.registry;

import java.time.Instant;
import java.util.Optional;

/**
 * One of several keys of the same kind that are valid at once while one replaces another: a Stripe endpoint secret,
 * or a WeChat Pay public key under its serial. A key past its {@code retireAt} is no longer used by any instance.
 *
 * @param serial  the WeChat Pay serial ({@code PUB_KEY_ID_...} or a certificate serial); for a Stripe secret its
 *                fingerprint
 */
public record RotatingKey(String serial, String value, Optional<Instant> retireAt) {

    public RotatingKey {
        retireAt = retireAt == null ? Optional.empty() : retireAt;
    }

    public boolean liveAt(Instant now) {
        return retireAt.map(now::isBefore).orElse(true);
    }

    public RotatingKey retiringAt(Instant at) {
        return new RotatingKey(serial, value, Optional.of(at));
    }

    @Override
    public String toString() {
        return "RotatingKey[" + serial + ", " + Fingerprint.of(value) + ", retireAt=" + retireAt.orElse(null) + "]";
    }
}
