package io.paycallback.provider;

import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;

/**
 * The {@code Authorization} header of a WeChat Pay v3 request: SHA256withRSA with the merchant API key over
 * {@code METHOD\nURL\nTIMESTAMP\nNONCE\nBODY\n}, where URL is the path with its query string and BODY is empty for GET.
 */
public final class WxPayAuthorization {

    public static final String SCHEMA = "WECHATPAY2-SHA256-RSA2048";

    private WxPayAuthorization() {
    }

    public static String message(String method, String canonicalUrl, long timestamp, String nonce, String body) {
        return method + "\n" + canonicalUrl + "\n" + timestamp + "\n" + nonce + "\n" + body + "\n";
    }

    public static String signature(PrivateKey merchantKey, String method, String canonicalUrl, long timestamp,
                                   String nonce, String body) {
        return RsaSigning.sign(merchantKey,
                message(method, canonicalUrl, timestamp, nonce, body).getBytes(StandardCharsets.UTF_8));
    }

    public static String header(String mchid, String serial, PrivateKey merchantKey, String method, String canonicalUrl,
                                long timestamp, String nonce, String body) {
        return SCHEMA + " mchid=\"" + mchid + "\",nonce_str=\"" + nonce + "\",signature=\""
                + signature(merchantKey, method, canonicalUrl, timestamp, nonce, body) + "\",timestamp=\"" + timestamp
                + "\",serial_no=\"" + serial + "\"";
    }
}
