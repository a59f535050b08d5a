package io.paycallback.console;

import io.quarkus.security.identity.request.BaseAuthenticationRequest;

/** A console session cookie's value, to be checked by {@link ConsoleSessionIdentityProvider}. */
public class ConsoleSessionRequest extends BaseAuthenticationRequest {

    private final String cookie;

    public ConsoleSessionRequest(String cookie) {
        this.cookie = cookie;
    }

    public String cookie() {
        return cookie;
    }
}
