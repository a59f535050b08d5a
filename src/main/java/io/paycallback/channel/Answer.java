package io.paycallback.channel;

/** The HTTP answer in the provider's own format. */
public record Answer(int status, String contentType, String body) {
}
