package io.paycallback.channel.wxpay;

import com.fasterxml.jackson.databind.JsonNode;
import io.paycallback.channel.Endpoint;
import io.paycallback.channel.JsonFields;
import io.paycallback.channel.Rejection;

import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One merchant's WeChat Pay keys, or a partner's (服务商), whose notices are about its sub-merchants.
 *
 * @param mchid        the merchant's number; a partner's own ({@code sp_mchid})
 * @param apiV3Key     the AES-256-GCM key of notice resources
 * @param publicKeys   platform certificate serial or {@code PUB_KEY_ID_...} to WeChat Pay's public key, as an operator
 *                     pins them; several during rotation
 * @param endpoint     a direct merchant's, or a partner's with each sub-merchant's number ({@code sub_mchid}) we
 *                     serve to its merchant id
 * @param certificates the platform certificates it downloads; {@link PlatformCertificates#NONE} when it only pins
 */
public record WxPayMerchant(String mchid, SecretKey apiV3Key, Map<String, PublicKey> publicKeys, Endpoint endpoint,
                            PlatformCertificates certificates) {

    /** WeChat Pay's merchant numbers are numbers (10 digits today); every notice's mchid is checked against it. */
    private static final Pattern MCHID = Pattern.compile("[0-9]{6,32}");
    private static final String UNKNOWN_SUB_MERCHANT = "sub_mchid is not a sub-merchant configured for this partner";

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
        Objects.requireNonNull(certificates, "certificates");
        if (publicKeys.isEmpty() && certificates == PlatformCertificates.NONE) {
            throw new IllegalArgumentException("public-keys is empty (give merchant-serial and merchant-private-key"
                    + " to download WeChat Pay's platform certificates instead)");
        }
        publicKeys = Map.copyOf(publicKeys);
        Objects.requireNonNull(endpoint, "endpoint");
    }

    /** A merchant, or a partner, that pins its keys. */
    public WxPayMerchant(String mchid, SecretKey apiV3Key, Map<String, PublicKey> publicKeys, Endpoint endpoint) {
        this(mchid, apiV3Key, publicKeys, endpoint, PlatformCertificates.NONE);
    }

    /** A direct merchant. */
    public WxPayMerchant(String mchid, SecretKey apiV3Key, Map<String, PublicKey> publicKeys) {
        this(mchid, apiV3Key, publicKeys, Endpoint.DIRECT);
    }

    /** The key of a serial: a pinned one first, else a downloaded certificate's. */
    Optional<PublicKey> key(String serial) {
        PublicKey pinned = publicKeys.get(serial);
        return pinned != null ? Optional.of(pinned) : certificates.key(serial);
    }

    /** Whether this is a merchant number as WeChat Pay gives them. */
    public static boolean isMchid(String mchid) {
        return mchid != null && MCHID.matcher(mchid).matches();
    }

    /**
     * The merchant a notice's plaintext is about: a direct merchant's must name its {@code mchid}; a partner's must name
     * the partner as {@code sp_mchid} and a sub-merchant we serve as {@code sub_mchid}, whose merchant it is.
     */
    String merchantOf(String pathMerchantId, JsonNode plaintext) throws Rejection {
        if (!(endpoint instanceof Endpoint.Platform partner)) {
            if (!mchid.equals(JsonFields.text(plaintext, "mchid"))) {
                throw Rejection.malformed("mchid is not the configured merchant");
            }
            return pathMerchantId;
        }
        if (!mchid.equals(JsonFields.optionalText(plaintext, "sp_mchid"))) {
            throw Rejection.malformed("sp_mchid is not the configured partner");
        }
        return partner.merchantOf(JsonFields.text(plaintext, "sub_mchid"), UNKNOWN_SUB_MERCHANT);
    }

    /** The APIv3 key as configured: its UTF-8 bytes are the AES key, so it must be exactly 32 bytes. */
    public static SecretKey apiV3Key(String value) {
        byte[] bytes = value == null ? new byte[0] : value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length != 32) {
            throw new IllegalArgumentException("api-v3-key must be 32 bytes");
        }
        return new SecretKeySpec(bytes, "AES");
    }

    /**
     * The merchant a combine notice's sub-order belongs to. The combine was made by this merchant, or by this partner
     * ({@code combine_mchid}); a direct merchant's sub-orders are its own ({@code mchid}), a partner's name it as
     * {@code mchid} and a sub-merchant we serve as {@code sub_mchid}.
     */
    String merchantOfSubOrder(String pathMerchantId, JsonNode subOrder) throws Rejection {
        if (!mchid.equals(JsonFields.text(subOrder, "mchid"))) {
            throw Rejection.malformed("a sub-order's mchid is not the configured merchant");
        }
        if (!(endpoint instanceof Endpoint.Platform partner)) {
            return pathMerchantId;
        }
        return partner.merchantOf(JsonFields.text(subOrder, "sub_mchid"), UNKNOWN_SUB_MERCHANT);
    }

    @Override
    public String toString() {
        String served = endpoint instanceof Endpoint.Platform partner
                ? ", sub-merchants=" + partner.subMerchants().keySet() : ", direct";
        return "WxPayMerchant[mchid=" + mchid + ", serials=" + publicKeys.keySet() + ", downloaded="
                + certificates.serials() + served + "]";
    }
}
