package io.paycallback.provider;

/** A failed provider call; the message never holds keys, signatures or bodies. */
public final class ProviderException extends RuntimeException {

    private final transient ProviderFailure failure;

    public ProviderException(String provider, ProviderFailure failure) {
        super(provider + " " + failure.describe(), null, false, false);
        this.failure = failure;
    }

    public ProviderFailure failure() {
        return failure;
    }

    public boolean rejected() {
        return failure instanceof ProviderFailure.Rejected;
    }
}
