package io.paycallback.channel.wxpay;

import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One merchant's WeChat Pay keys.
 *
 * @param apiV3Key   the AES-256-GCM key of notice resources
 * @param publicKeys platform certificate serial or {@code PUB_KEY_ID_...} to WeChat Pay's public key; several during rotation
 */
public record WxPayMerchant(String mchid, SecretKey apiV3Key, Map<String, PublicKey> publicKeys) {

    /** WeChat Pay's merchant numbers are numbers (10 digits today); every notice's mchid is checked against it. */
    private static final Pattern MCHID = Pattern.compile("[0-9]{6,32}");

    public WxPayMerchant {
        if (mchid == null || mchid.isBlank()) {
            throw new IllegalArgumentException("mchid is empty");
        }
        if (!MCHID.matcher(mchid).matches()) {
            throw new IllegalArgumentException("mchid is not a WeChat Pay merchant number (digits only)");
        }
        if (apiV3Key.getEncoded().length != 32) {
            throw new IllegalArgumentException("api-v3-key must be 32 bytes");
        }
        if (publicKeys.isEmpty()) {
            throw new IllegalArgumentException("public-keys is empty");
        }
        publicKeys = Map.copyOf(publicKeys);
    }

    /** The APIv3 key as configured: its UTF-8 bytes are the AES key, so it must be exactly 32 bytes. */
    public static SecretKey apiV3Key(String value) {
        byte[] bytes = value == null ? new byte[0] : value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length != 32) {
            throw new IllegalArgumentException("api-v3-key must be 32 bytes");
        }
        return new SecretKeySpec(bytes, "AES");
    }

    @Override
    public String toString() {
        return "WxPayMerchant[mchid=" + mchid + ", serials=" + publicKeys.keySet() + "]";
    }
}
