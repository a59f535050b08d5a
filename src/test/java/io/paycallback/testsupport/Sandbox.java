package io.paycallback.testsupport;

import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.util.Base64;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The tests' fake WeChat Pay, Alipay and Stripe APIs for a person: deploy/dev/sandbox.sh starts this beside dev mode.
 * The fakes sign their answers with the private halves of dev mode's demo provider keys, which live only in
 * deploy/dev/SendSample.java ({@code java deploy/dev/SendSample.java provider-keys} prints them), so dev mode trusts
 * the fakes' answers and SendSample's callbacks alike. It lives in the test sources so that the fakes never reach the
 * packaged application.
 * <pre>
 *   Sandbox PORT PROVIDER_KEYS OUT   PROVIDER_KEYS: SendSample's provider-keys output; OUT: what dev mode needs
 *                                    ("key=value" lines: the merchant's API keys, the providers' URLs). Runs until killed.
 * </pre>
 */
public final class Sandbox {

    private Sandbox() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: Sandbox PORT PROVIDER_KEYS OUT");
            System.exit(2);
        }
        Properties demo = new Properties();
        try (Reader in = Files.newBufferedReader(Path.of(args[1]))) {
            demo.load(in);
        }
        PrivateKey wxPrivate = privateKey(demo.getProperty("wxpay.private-key"));
        PrivateKey alipayPrivate = privateKey(demo.getProperty("alipay.private-key"));
        ProviderKeys keys = new ProviderKeys(demo.getProperty("wxpay.mchid"), demo.getProperty("wxpay.serial"), wxPrivate,
                publicDer(wxPrivate), demo.getProperty("wxpay.api-v3-key"), demo.getProperty("alipay.app-id"),
                alipayPrivate, publicDer(alipayPrivate), demo.getProperty("stripe.webhook-secret"),
                ProviderKeys.webhookSecret());
        ProviderKeysResource fakes = new ProviderKeysResource();
        Map<String, String> config = new TreeMap<>(fakes.startFakes(keys, Integer.parseInt(args[0])));
        String base = config.remove("test.fake-providers.base-url");
        // Alipay's certificates (public-key certificate mode) are PEM texts of several lines: files of their own beside
        // the configuration, to paste into a merchant's account.
        for (Map.Entry<String, String> certificate : fakes.alipayCertificates().entrySet()) {
            Files.writeString(Path.of(args[2]).resolveSibling(
                    certificate.getKey().substring("test.fake-providers.".length()) + ".pem"), certificate.getValue());
        }
        // One "key=value" line per entry, unescaped, so the shell can turn each into a -D option as is.
        try (Writer out = Files.newBufferedWriter(Path.of(args[2]))) {
            for (Map.Entry<String, String> entry : config.entrySet()) {
                out.write(entry.getKey() + "=" + entry.getValue() + "\n");
            }
        }
        System.out.println("sandbox: fake WeChat Pay, Alipay and Stripe at " + base + " (control: " + base + "/control/...)");
        System.out.flush();
    }

    private static PrivateKey privateKey(String base64Pkcs8) throws GeneralSecurityException {
        return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64Pkcs8)));
    }

    /** The public half, from the modulus and exponent every PKCS#8 RSA key carries. */
    private static String publicDer(PrivateKey key) throws GeneralSecurityException {
        RSAPrivateCrtKey crt = (RSAPrivateCrtKey) key;
        return Base64.getEncoder().encodeToString(KeyFactory.getInstance("RSA")
                .generatePublic(new RSAPublicKeySpec(crt.getModulus(), crt.getPublicExponent())).getEncoded());
    }
}
