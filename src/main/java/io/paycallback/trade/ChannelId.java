package io.paycallback.trade;

import java.util.Optional;

/** The payment providers we accept callbacks from, named as they appear in the callback path. */
public enum ChannelId {
    WXPAY("wxpay"),
    ALIPAY("alipay"),
    STRIPE("stripe");

    private final String path;

    ChannelId(String path) {
        this.path = path;
    }

    public String path() {
        return path;
    }

    public static Optional<ChannelId> fromPath(String path) {
        for (ChannelId id : values()) {
            if (id.path.equals(path)) {
                return Optional.of(id);
            }
        }
        return Optional.empty();
    }
}
