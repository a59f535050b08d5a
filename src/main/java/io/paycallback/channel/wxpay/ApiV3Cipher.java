package io.paycallback.channel.wxpay;

import com.fasterxml.jackson.databind.JsonNode;
import io.paycallback.channel.JsonFields;
import io.paycallback.channel.Rejection;

import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;

/**
 * What WeChat Pay encrypts with a merchant's APIv3 key: a notice's {@code resource} and each platform certificate of
 * {@code GET /v3/certificates} ({@code encrypt_certificate}) alike, as AEAD_AES_256_GCM with the UTF-8 bytes of
 * {@code nonce} as the IV and of {@code associated_data} as the additional data.
 */
final class ApiV3Cipher {

    private static final String AEAD_ALGORITHM = "AEAD_AES_256_GCM";
    private static final int GCM_TAG_BITS = 128;

    private ApiV3Cipher() {
    }

    /**
     * @param encrypted an object with {@code algorithm}, {@code nonce}, {@code ciphertext} and an optional
     *                  {@code associated_data}
     * @param what      names the object in a refusal
     */
    static byte[] decrypt(JsonNode encrypted, SecretKey apiV3Key, String what) throws Rejection {
        if (!AEAD_ALGORITHM.equals(JsonFields.text(encrypted, "algorithm"))) {
            throw Rejection.malformed("unsupported " + what + " algorithm");
        }
        String associatedData = JsonFields.optionalText(encrypted, "associated_data");
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, apiV3Key,
                    new GCMParameterSpec(GCM_TAG_BITS, JsonFields.text(encrypted, "nonce").getBytes(StandardCharsets.UTF_8)));
            if (associatedData != null) {
                cipher.updateAAD(associatedData.getBytes(StandardCharsets.UTF_8));
            }
            return cipher.doFinal(Base64.getDecoder().decode(JsonFields.text(encrypted, "ciphertext")));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw Rejection.malformed(what + " does not decrypt");
        }
    }
}
