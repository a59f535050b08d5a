package io.paycallback.config;

import io.quarkus.runtime.Startup;
import io.smallrye.config.SmallRyeConfig;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.Config;

import java.util.List;
import java.util.TreeSet;

/**
 * Stops the start while any setting of the service or its database still holds the Secret template's placeholder
 * ({@code k8s/base/secret-template.yaml}), in its name (a WeChat Pay serial) or its value, naming every such key: a
 * half-filled copy must not go live, whatever the key's own format check would say of the placeholder.
 */
@Startup
@ApplicationScoped
public class PlaceholderCheck {

    static final String PLACEHOLDER = "REPLACE_ME";
    private static final List<String> PREFIXES = List.of("paycallback.", "quarkus.datasource.");

    public PlaceholderCheck(Config config) {
        SmallRyeConfig settings = config.unwrap(SmallRyeConfig.class);
        TreeSet<String> left = new TreeSet<>();
        for (String name : settings.getPropertyNames()) {
            if (PREFIXES.stream().noneMatch(name::startsWith)) {
                continue;
            }
            String value = settings.getRawValue(name);
            if (name.contains(PLACEHOLDER) || (value != null && value.contains(PLACEHOLDER))) {
                left.add(name);
            }
        }
        if (!left.isEmpty()) {
            throw new IllegalStateException(String.join(", ", left) + " still hold the placeholder " + PLACEHOLDER
                    + " of the Secret template: fill them in, or remove the sections not used");
        }
    }
}
