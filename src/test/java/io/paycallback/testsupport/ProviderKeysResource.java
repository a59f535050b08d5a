package io.paycallback.testsupport;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.util.Map;

/** Gives every {@code @QuarkusTest} application freshly generated merchant keys. */
public class ProviderKeysResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        return ProviderKeys.generate().asConfig();
    }

    @Override
    public void stop() {
    }
}
