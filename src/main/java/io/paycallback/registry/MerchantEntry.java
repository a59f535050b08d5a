package io.paycallback.registry;

import io.paycallback.trade.ChannelId;

import java.util.EnumMap;
import java.util.Map;
import java.util.regex.Pattern;

/** A merchant: whether it is served, where it is declared, and how it is paid at each provider. */
public record MerchantEntry(String id, boolean enabled, Source source, Map<ChannelId, Account> accounts) {

    /** The callback path's last segment and every log's merchant_id column (VARCHAR(32)). */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,31}");

    public MerchantEntry {
        accounts = accounts.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(accounts));
    }

    public static boolean isId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    public MerchantEntry with(Account account) {
        Map<ChannelId, Account> changed = new EnumMap<>(ChannelId.class);
        changed.putAll(accounts);
        changed.put(account.provider(), account);
        return new MerchantEntry(id, enabled, source, changed);
    }

    public MerchantEntry without(ChannelId provider) {
        Map<ChannelId, Account> changed = new EnumMap<>(ChannelId.class);
        changed.putAll(accounts);
        changed.remove(provider);
        return new MerchantEntry(id, enabled, source, changed);
    }

    public MerchantEntry enabled(boolean on) {
        return new MerchantEntry(id, on, source, accounts);
    }
}
