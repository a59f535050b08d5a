package io.paycallback.channel;

/** The HTTP answer in the provider's own format. */
public record CallbackAnswer(int status, String contentType, String body) {
}
