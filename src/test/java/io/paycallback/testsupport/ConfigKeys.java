package io.paycallback.testsupport;

import io.paycallback.apikey.ApiKeysConfig;
import io.paycallback.auth.AuthConfig;
import io.paycallback.auth.IdentityProviderConfig;
import io.paycallback.auth.ThrottleConfig;
import io.paycallback.callback.CallbackConfig;
import io.paycallback.closing.ClosingConfig;
import io.paycallback.config.DatabaseConfig;
import io.paycallback.config.LocalConfigFile;
import io.paycallback.config.MonitoringConfig;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.config.RequeueConfig;
import io.paycallback.console.ConsoleConfig;
import io.paycallback.delivery.DeliveryConfig;
import io.paycallback.inbox.InboxConfig;
import io.paycallback.lease.LeaseConfig;
import io.paycallback.health.HealthConfig;
import io.paycallback.housekeeping.HousekeepingConfig;
import io.paycallback.orderquery.OrderQueryConfig;
import io.paycallback.outbox.OutboxConfig;
import io.paycallback.provider.ProviderConfig;
import io.paycallback.providercall.ProviderCallConfig;
import io.paycallback.registry.RegistryConfig;
import io.paycallback.statement.StatementConfig;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Every leaf key of the {@code paycallback.*} mappings, read from the interfaces themselves the way SmallRye names them
 * (method names in kebab case, {@code @WithName} where given, {@code *} for each map key), so tests that compare the
 * deployment or the docs with the application cannot drift from them.
 */
public final class ConfigKeys {

    /**
     * @param pattern      the property name, {@code *} standing for each map key
     * @param defaultValue the {@code @WithDefault} value, if any
     * @param deprecated   still read, but not to be set any more
     */
    public record Key(String pattern, Optional<String> defaultValue, boolean deprecated) {

        public boolean matches(String property) {
            String[] want = pattern.split("\\.");
            // A map key with dots is quoted, as SmallRye reads it: properties."compression.type".
            String[] have = property.split("\\.(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)");
            if (want.length != have.length) {
                return false;
            }
            for (int i = 0; i < want.length; i++) {
                if (!want[i].equals("*") && !want[i].equals(have[i])) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Every {@code @ConfigMapping} under {@code paycallback.}: a package that owns its configuration adds its own here. */
    private static final List<Class<?>> MAPPINGS = List.of(
            PayCallbackConfig.class, DatabaseConfig.class, LocalConfigFile.class, MonitoringConfig.class,
            RequeueConfig.class, AuthConfig.class, CallbackConfig.class, InboxConfig.class, LeaseConfig.class,
            OutboxConfig.class, DeliveryConfig.class, ProviderConfig.class, ProviderCallConfig.class,
            OrderQueryConfig.class, ClosingConfig.class, StatementConfig.class, RegistryConfig.class, HealthConfig.class, HousekeepingConfig.class,
            ConsoleConfig.class, ApiKeysConfig.class, ThrottleConfig.class, IdentityProviderConfig.class);

    private ConfigKeys() {
    }

    /** Every key, deprecated ones included, sorted by name. */
    public static List<Key> all() {
        List<Key> keys = new ArrayList<>();
        for (Class<?> mapping : MAPPINGS) {
            collect(mapping.getAnnotation(ConfigMapping.class).prefix(), mapping, false, keys);
        }
        keys.sort(Comparator.comparing(Key::pattern));
        // Each key belongs to one mapping, that of the package it configures.
        for (int i = 1; i < keys.size(); i++) {
            if (keys.get(i).pattern().equals(keys.get(i - 1).pattern())) {
                throw new IllegalStateException(keys.get(i).pattern() + " is mapped twice");
            }
        }
        return keys;
    }

    private static void collect(String prefix, Class<?> group, boolean deprecated, List<Key> keys) {
        for (Method method : group.getDeclaredMethods()) {
            if (method.isDefault() || method.isSynthetic() || method.getParameterCount() > 0) {
                continue;
            }
            WithName withName = method.getAnnotation(WithName.class);
            WithDefault withDefault = method.getAnnotation(WithDefault.class);
            String name = prefix + "." + (withName != null ? withName.value() : kebab(method.getName()));
            collect(name, method.getGenericReturnType(), Optional.ofNullable(withDefault).map(WithDefault::value),
                    deprecated || method.isAnnotationPresent(Deprecated.class), keys);
        }
    }

    private static void collect(String name, Type type, Optional<String> defaultValue, boolean deprecated, List<Key> keys) {
        if (type instanceof ParameterizedType parameterized) {
            Class<?> raw = (Class<?>) parameterized.getRawType();
            Type[] arguments = parameterized.getActualTypeArguments();
            if (raw == Map.class) {
                collect(name + ".*", arguments[1], defaultValue, deprecated, keys);
                return;
            }
            if (raw == Optional.class) {
                collect(name, arguments[0], defaultValue, deprecated, keys);
                return;
            }
            keys.add(new Key(name, defaultValue, deprecated));
            return;
        }
        Class<?> raw = (Class<?>) type;
        if (raw.isInterface() && MAPPINGS.stream().anyMatch(mapping -> raw.getName().startsWith(mapping.getName()))) {
            collect(name, raw, deprecated, keys);
        } else {
            keys.add(new Key(name, defaultValue, deprecated));
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }
}
