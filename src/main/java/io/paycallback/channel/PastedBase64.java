package io.paycallback.channel;

import java.util.Base64;

/** Base64 as operators paste keys: line breaks and spaces between the characters are ignored, nothing else is. */
public final class PastedBase64 {

    private PastedBase64() {
    }

    /**
     * Not a regular expression: a registry of ten thousand merchants decodes this many keys when it is built.
     *
     * @throws IllegalArgumentException when what is left is not base64
     */
    public static byte[] decode(String text) {
        StringBuilder kept = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!Character.isWhitespace(c)) {
                kept.append(c);
            }
        }
        return Base64.getDecoder().decode(kept.toString());
    }
}
