package io.paycallback.channel;

import org.junit.jupiter.api.Test;

import java.security.KeyPair;
import java.security.interfaces.RSAPublicKey;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PublicKeysTest {

    private static final KeyPair KEYS = TestKeys.rsa();

    /** A self-signed test certificate (keytool), standing in for a WeChat Pay platform certificate. */
    static final String CERTIFICATE = """
            -----BEGIN CERTIFICATE-----
            MIIC6zCCAdOgAwIBAgIIXd7Gpq9rBSIwDQYJKoZIhvcNAQELBQAwIzEhMB8GA1UE
            AxMYVGVzdCBXZUNoYXQgUGF5IFBsYXRmb3JtMCAXDTI2MTIwMjEzMDgxMVoYDzIx
            MjYxMTA4MTMwODExWjAjMSEwHwYDVQQDExhUZXN0IFdlQ2hhdCBQYXkgUGxhdGZv
            cm0wggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQCZmrNvYLTROvvRXTqx
            GE0F1HaRSX+5XTJyAuBP//KsdPs+ByqCKPJX8XH/B8oC24DnKalPSnpnC9Pd01bL
            xGBQQQ5OKNBMWXnuzKRUoljF8axPkHzkQIGdHVSj/PVxru6h23ZZ7pYLu4p3scyp
            IYhHUiCRe8QYCibNeqb8IaOu/tm/civstMvUi1zcjgyiTHFDgSzhdH0ZRyHLE4PA
            yuZnA9SYDdT5i1pumvJl/4sM4mA3YquM/T1lfU5T4GG/s0yVoHYKwuQapHoStHb1
            5aGVQdQwAaAh9SGmPEuAc8qyDa71GMqOIB17JmmtLN0YAVTvixuswuJWH3t3Tjg6
            0+Q1AgMBAAGjITAfMB0GA1UdDgQWBBTlgj0P7Fne6hpkwReS9BLcLMa1VDANBgkq
            hkiG9w0BAQsFAAOCAQEAfmdoa5udnYLWyinNOEPXRCzNqr+SSjoaHdYbNfsCJxUQ
            PGUFOEAWBKtH7Z0b5SOLUpW/8YfyjDAUdqUTKeG+rfpldZpVjm5c9SJWEd7t6ToG
            Sbg2p6pQIagbCkuaM6QItPcz15EXDesKwC1frIobcpgQkpg12Oa9/qgiauidgnfm
            VxXBi9mEDrpuln0mqAfV6QufFNFolaCdxD2eylnB0H1ZUUEzUap9rnGaS8EJjcOL
            aMwDCcr9ptefl1VKeGTOFvkWGbOFS3DarfWZf+QMORCDNjox0vthkXSIOJJhIZNt
            2ouQzTqa+5RWDtPAU4XA+CFjqX74JN44Tvgm9XLvng==
            -----END CERTIFICATE-----
            """;

    /** The public key inside {@link #CERTIFICATE} ({@code openssl x509 -pubkey}). */
    static final String CERTIFICATE_PUBLIC_KEY = """
            -----BEGIN PUBLIC KEY-----
            MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAmZqzb2C00Tr70V06sRhN
            BdR2kUl/uV0ycgLgT//yrHT7PgcqgijyV/Fx/wfKAtuA5ympT0p6ZwvT3dNWy8Rg
            UEEOTijQTFl57sykVKJYxfGsT5B85ECBnR1Uo/z1ca7uodt2We6WC7uKd7HMqSGI
            R1IgkXvEGAomzXqm/CGjrv7Zv3Ir7LTL1Itc3I4MokxxQ4Es4XR9GUchyxODwMrm
            ZwPUmA3U+YtabpryZf+LDOJgN2KrjP09ZX1OU+Bhv7NMlaB2CsLkGqR6ErR29eWh
            lUHUMAGgIfUhpjxLgHPKsg2u9RjKjiAdeyZprSzdGAFU74sbrMLiVh97d044OtPk
            NQIDAQAB
            -----END PUBLIC KEY-----
            """;

    @Test
    void readsPemPublicKey() {
        RSAPublicKey key = PublicKeys.parse(TestKeys.pem(KEYS.getPublic()), "k");
        assertArrayEquals(KEYS.getPublic().getEncoded(), key.getEncoded());
    }

    @Test
    void readsBareBase64Der() {
        RSAPublicKey key = PublicKeys.parse(TestKeys.base64Der(KEYS.getPublic()), "k");
        assertArrayEquals(KEYS.getPublic().getEncoded(), key.getEncoded());
    }

    @Test
    void readsPublicKeyOfCertificate() {
        RSAPublicKey fromCertificate = PublicKeys.parse(CERTIFICATE, "k");
        RSAPublicKey expected = PublicKeys.parse(CERTIFICATE_PUBLIC_KEY, "k");
        assertArrayEquals(expected.getEncoded(), fromCertificate.getEncoded());
    }

    @Test
    void invalidValueNamesTheKeyButNotTheValue() {
        String value = "bm90LWEta2V5LXNlY3JldA==";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PublicKeys.parse(value, "paycallback.merchants.m1.alipay.public-key"));
        assertTrue(e.getMessage().contains("paycallback.merchants.m1.alipay.public-key"));
        assertFalse(e.getMessage().contains(value));
    }

    @Test
    void rejectsEmptyTruncatedAndUnsupportedPem() {
        assertThrows(IllegalArgumentException.class, () -> PublicKeys.parse(" ", "k"));
        assertThrows(IllegalArgumentException.class, () -> PublicKeys.parse("not base64 !", "k"));
        String pem = TestKeys.pem(KEYS.getPublic());
        assertThrows(IllegalArgumentException.class, () -> PublicKeys.parse(pem.substring(0, pem.indexOf("-----END")), "k"));
        assertThrows(IllegalArgumentException.class,
                () -> PublicKeys.parse(pem.replace("PUBLIC KEY", "RSA PUBLIC KEY"), "k"));
        assertEquals("k is empty", assertThrows(IllegalArgumentException.class, () -> PublicKeys.parse(null, "k")).getMessage());
    }
}
