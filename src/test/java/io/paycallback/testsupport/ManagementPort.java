package io.paycallback.testsupport;

import org.eclipse.microprofile.config.ConfigProvider;

/** The management interface's port as the running test application has it, so suites can run side by side. */
public final class ManagementPort {

    private ManagementPort() {
    }

    public static int get() {
        return ConfigProvider.getConfig().getOptionalValue("quarkus.management.test-port", Integer.class).orElse(9001);
    }
}
