package io.paycallback.registry;

import javax.crypto.Cipher;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * Envelope encryption of a row's secrets: a fresh AES-256 data key per sealing encrypts them with AES-GCM, and the
 * key-encryption key wraps that data key, also with AES-GCM. The row's identity is the associated data of both, so a
 * sealed value copied to another row does not open there. Only the wrapped data key depends on the key-encryption key,
 * so a re-wrap under a new one rewrites 60 bytes and never touches the secrets' ciphertext.
 */
public final class Envelope {

    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** What a row stores: the id of the key-encryption key, the wrapped data key and the secrets' ciphertext. */
    public record Sealed(String kekId, byte[] wrappedKey, byte[] ciphertext) {
    }

    private Envelope() {
    }

    public static Sealed seal(byte[] plaintext, byte[] rowIdentity, KeyEncryptionKeys.Key kek) {
        try {
            KeyGenerator generator = KeyGenerator.getInstance("AES");
            generator.init(256, RANDOM);
            SecretKey dataKey = generator.generateKey();
            byte[] ciphertext = encrypt(dataKey, plaintext, rowIdentity);
            return new Sealed(kek.id(), encrypt(kek.secretKey(), dataKey.getEncoded(), rowIdentity), ciphertext);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available", e);
        }
    }

    /** @throws IllegalArgumentException when the key-encryption key is unknown or the row was altered */
    public static byte[] open(Sealed sealed, byte[] rowIdentity, KeyEncryptionKeys keys) {
        SecretKey dataKey = dataKey(sealed, rowIdentity, keys);
        try {
            return decrypt(dataKey, sealed.ciphertext(), rowIdentity);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the sealed secrets do not open with their data key: altered or moved");
        }
    }

    /** The same secrets with their data key wrapped by {@code kek}. */
    public static Sealed rewrap(Sealed sealed, byte[] rowIdentity, KeyEncryptionKeys keys, KeyEncryptionKeys.Key kek) {
        SecretKey dataKey = dataKey(sealed, rowIdentity, keys);
        try {
            return new Sealed(kek.id(), encrypt(kek.secretKey(), dataKey.getEncoded(), rowIdentity), sealed.ciphertext());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available", e);
        }
    }

    private static SecretKey dataKey(Sealed sealed, byte[] rowIdentity, KeyEncryptionKeys keys) {
        KeyEncryptionKeys.Key kek = keys.find(sealed.kekId()).orElseThrow(() -> new IllegalArgumentException(
                "key-encryption key '" + sealed.kekId() + "' is not configured"));
        try {
            return new SecretKeySpec(decrypt(kek.secretKey(), sealed.wrappedKey(), rowIdentity), "AES");
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the data key does not unwrap with key-encryption key '" + kek.id()
                    + "': a different key under that id, or the row was altered");
        }
    }

    private static byte[] encrypt(SecretKey key, byte[] plaintext, byte[] aad) throws GeneralSecurityException {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
        cipher.updateAAD(aad);
        byte[] sealed = cipher.doFinal(plaintext);
        byte[] out = Arrays.copyOf(nonce, NONCE_BYTES + sealed.length);
        System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
        return out;
    }

    private static byte[] decrypt(SecretKey key, byte[] sealed, byte[] aad) throws GeneralSecurityException {
        if (sealed.length < NONCE_BYTES + TAG_BITS / 8) {
            throw new javax.crypto.AEADBadTagException("too short");
        }
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 0, NONCE_BYTES));
        cipher.updateAAD(aad);
        return cipher.doFinal(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES);
    }
}
