package io.paycallback.provider;

/** Why a provider call gave no usable answer. Only {@link Rejected} is the provider's considered "no". */
public sealed interface ProviderFailure {

    String describe();

    /** Connection refused, reset or not resolvable: the call may or may not have reached the provider. */
    record Network(String detail) implements ProviderFailure {
        public String describe() {
            return "network: " + detail;
        }
    }

    /** No answer in time: the call may have taken effect, so a retry must carry the same idempotency key. */
    record Timeout() implements ProviderFailure {
        public String describe() {
            return "timeout";
        }
    }

    /** The provider refused the request, with its own error code. */
    record Rejected(int status, String code, String message) implements ProviderFailure {
        public String describe() {
            return "rejected " + status + " " + code + (message == null ? "" : ": " + message);
        }
    }

    /** The provider failed on its side; retried. */
    record ServerError(int status, String code) implements ProviderFailure {
        public String describe() {
            return "server error " + status + (code == null ? "" : " " + code);
        }
    }

    /** The provider would not close a trade that its query still shows open ({@code state}); retried. */
    record NotClosed(String state) implements ProviderFailure {
        public String describe() {
            return "not closed, still " + state;
        }
    }

    /** An answer that does not verify or cannot be read is not a fact; retried. */
    record BadAnswer(String reason) implements ProviderFailure {
        public String describe() {
            return "bad answer: " + reason;
        }
    }
}
