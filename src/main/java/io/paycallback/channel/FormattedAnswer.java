package io.paycallback.channel;

/** An {@link AnswerKind} in the provider's own format: the status, content type and body the route writes. */
public record FormattedAnswer(int status, String contentType, String body) {
}
