package io.paycallback.testsupport;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real identity provider for the tests: Keycloak started by deploy/keycloak/start.sh with the repository's realm,
 * once per test JVM (every profile that uses it shares it; it stops with the JVM, unless it was running before), and the service configured to sign
 * operators in through it. Where Keycloak cannot start (no JDK 21+ for it, no network for its first download) the
 * tests that need it are skipped, naming the reason ({@link Keycloak#assumeRunning()}); with
 * {@code -Dkeycloak.required=true} (.ci/run sets it) that is a failure instead.
 */
public class KeycloakResource implements QuarkusTestResourceLifecycleManager {

    public static final String REALM = "paycallback";
    public static final String CONSOLE_CLIENT = "pay-callback-console";
    public static final String CONSOLE_SECRET = "console-secret-for-dev-and-tests-only";
    /** Set instead of the provider's address when Keycloak did not start: why (outside paycallback.*, which is validated). */
    public static final String UNAVAILABLE = "test.keycloak.unavailable";

    private static final Path SCRIPT = Path.of("deploy/keycloak/start.sh");
    private static String url;
    private static String failure;

    @Override
    public Map<String, String> start() {
        String started = startOnce();
        Map<String, String> config = new HashMap<>();
        if (started == null) {
            config.put(UNAVAILABLE, failure);
            return config;
        }
        config.put("paycallback.auth.oidc.enabled", "true");
        config.put("paycallback.auth.oidc.provider-name", "Keycloak");
        config.put("paycallback.auth.oidc.role-mapping.paycallback-operators", "operator");
        config.put("paycallback.auth.oidc.role-mapping.paycallback-viewers", "viewer");
        config.put("quarkus.oidc.auth-server-url", started + "/realms/" + REALM);
        config.put("quarkus.oidc.client-id", CONSOLE_CLIENT);
        config.put("quarkus.oidc.credentials.secret", CONSOLE_SECRET);
        return config;
    }

    private static synchronized String startOnce() {
        if (url != null || failure != null) {
            return url;
        }
        boolean alreadyRunning = Files.exists(Path.of("target/keycloak/keycloak.pid"));
        try {
            Process process = new ProcessBuilder(List.of("bash", SCRIPT.toString()))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            if (!process.waitFor(300, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                failure = "deploy/keycloak/start.sh did not finish within 300 s";
            } else {
                List<String> lines = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
                if (process.exitValue() == 0 && !lines.isEmpty() && lines.get(lines.size() - 1).startsWith("http")) {
                    url = lines.get(lines.size() - 1).strip();
                    if (!alreadyRunning) {
                        Runtime.getRuntime().addShutdownHook(new Thread(KeycloakResource::stopKeycloak));
                    }
                } else {
                    failure = "deploy/keycloak/start.sh exited with " + process.exitValue() + " (its messages are above)";
                }
            }
        } catch (IOException e) {
            failure = "deploy/keycloak/start.sh could not run: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = "interrupted while Keycloak started";
        }
        if (url == null && Boolean.getBoolean("keycloak.required")) {
            throw new IllegalStateException("Keycloak is required (-Dkeycloak.required=true) but did not start: " + failure);
        }
        return url;
    }

    private static void stopKeycloak() {
        try {
            new ProcessBuilder(List.of("bash", SCRIPT.toString(), "stop")).inheritIO().start().waitFor(40, TimeUnit.SECONDS);
        } catch (IOException e) {
            System.err.println("could not stop Keycloak: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void stop() {
        // Keycloak outlives this application: the next profile that needs it reuses it, and the JVM's exit stops it.
    }
}
