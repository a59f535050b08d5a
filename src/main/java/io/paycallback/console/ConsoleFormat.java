package io.paycallback.console;

import io.quarkus.qute.TemplateExtension;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** Template helpers for the console. */
@TemplateExtension
public final class ConsoleFormat {

    private ConsoleFormat() {
    }

    /** A value as one query parameter: numbers from providers may hold {@code &} or {@code #}. */
    static String url(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
