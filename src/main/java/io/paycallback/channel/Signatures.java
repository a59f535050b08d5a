package io.paycallback.channel;

import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Base64;

/** SHA256withRSA verification as both WeChat Pay v3 and Alipay RSA2 use it. */
public final class Signatures {

    private Signatures() {
    }

    /** False for any failure, including a signature that is not base64: the caller only needs "proven or not". */
    public static boolean sha256WithRsa(PublicKey key, byte[] message, String base64Signature) {
        byte[] signature;
        try {
            signature = Base64.getDecoder().decode(base64Signature.strip());
        } catch (IllegalArgumentException e) {
            return false;
        }
        try {
            Signature verifier = Signature.getInstance("SHA256withRSA");
            verifier.initVerify(key);
            verifier.update(message);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
