package io.paycallback.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.HTTPIngressPath;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.paycallback.testsupport.ConfigKeys;
import io.paycallback.testsupport.Markdown;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks the k8s overlays as {@code kubectl kustomize} renders them (what {@code kubectl apply -k} would send) against
 * the application's real configuration, so a port, path, metric, label or key renamed on one side fails here rather
 * than in a rollout. Plain JUnit: no application is started; kubectl must be on the PATH.
 */
class ManifestsTest {

    private static final String APP = "pay-callback";
    private static final List<String> OVERLAYS = List.of("jvm", "native");
    private static final Set<String> KINDS = Set.of("ServiceAccount", "ConfigMap", "Service", "Deployment",
            "HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy", "Ingress", "PodMonitor", "PrometheusRule");
    private static final String NAME = "app.kubernetes.io/name";
    private static final String INSTANCE = "app.kubernetes.io/instance";
    private static final String VERSION = "app.kubernetes.io/version";
    private static final List<String> RECOMMENDED_LABELS = List.of(NAME, INSTANCE, VERSION, "app.kubernetes.io/component",
            "app.kubernetes.io/part-of", "app.kubernetes.io/managed-by");
    /** What kube-prometheus-stack (release) and kube-prometheus style setups (prometheus, role) select rules by. */
    /** A runbook_url is {@code https://<host>/<group>/<repo>/-/blob/main/<path in this repository>#<section>}. */
    private static final String RUNBOOK_BLOB = "/-/blob/main/";
    private static final Set<String> RULE_SELECTOR_LABELS = Set.of("release", "prometheus", "role");
    private static final Set<String> CALLBACK_PREFIXES = Set.of("/pay/callback", "/refund/callback");
    private static final List<String> NEVER_ROUTED = List.of("/internal", "/admin", "/q");
    /** What providers wait for an answer before they count the push as failed. */
    private static final Duration PROVIDER_BUDGET = Duration.ofSeconds(5);
    private static final String SHUTDOWN_TIMEOUT_DEFAULT = "15s";
    /** RFC 5737's documentation ranges: a placeholder from them routes nowhere, so a forgotten one fails closed. */
    private static final Set<String> PLACEHOLDER_RANGES = Set.of("192.0.2.", "198.51.100.", "203.0.113.");

    /**
     * The Prometheus series the application exports (CallbackMetrics, ProcessingMetrics and the backlog gauges).
     * Micrometer adds _max next to a timer's histogram.
     */
    private static final Set<String> APP_METRICS = Set.of(
            "paycallback_callbacks_total",
            "paycallback_callback_seconds_bucket",
            "paycallback_callback_seconds_count",
            "paycallback_callback_seconds_sum",
            "paycallback_callback_seconds_max",
            "paycallback_processing_total",
            "paycallback_backlog_stale_pending",
            "paycallback_dead_letters",
            "paycallback_quarantine_rows",
            "paycallback_reconcile_queries_total",
            "paycallback_reconcile_found_paid_total",
            // StatementApiTest reads these from the running service's /q/metrics.
            "paycallback_statement_runs_total",
            "paycallback_statement_lines_total",
            "paycallback_statement_discrepancies_open",
            "paycallback_statement_discrepancy_oldest_open_seconds",
            "paycallback_statement_last_success_timestamp_seconds",
            // DestinationsTest reads these from the running service's /q/metrics.
            "paycallback_destination_state",
            "paycallback_destination_backlog",
            "paycallback_destination_oldest_pending_seconds",
            "paycallback_destination_recoveries_total",
            // RegistryFaultIT reads the version from the running services' /q/metrics.
            "paycallback_registry_version",
            "paycallback_registry_reload_failures_total",
            // WxPayCertificateRotationTest reads the failures from the running service's /q/metrics.
            "paycallback_wxpay_certificates_failing",
            // LoginThrottleTest reads this from the running service's /q/metrics.
            "paycallback_auth_throttled_total");
    /** Prometheus's own per-target series, for the target-down alert. */
    private static final String SCRAPE_HEALTH = "up";
    private static final Map<String, Set<String>> LABEL_VALUES = Map.of(
            "outcome", Set.of("new", "duplicate", "ignored", "bad_signature", "malformed", "rejected_busy",
                    "store_failed", "too_large", "unknown_merchant"),
            "result", Set.of("paid", "duplicate", "refund_requested", "refund_settled", "dead_letter", "delivered",
                    "retried", "dead", "lease_lost"),
            "table", Set.of("pay_callback_log", "refund_callback_log", "outbox"),
            "channel", Set.of("wxpay", "alipay", "stripe"),
            "kind", Set.of("payment", "refund"));

    private final Properties appProperties = Manifests.properties(Manifests.text("src/main/resources/application.properties"));
    /** Applied by hand, never rendered: see k8s/base/kustomization.yaml. */
    private final Secret secret = Manifests.read("k8s/base/secret-template.yaml", Secret.class);

    static List<String> overlays() {
        return OVERLAYS;
    }

    @Test
    void theOverlaysAreNativeAndJvm() {
        assertThat(Manifests.overlays()).containsExactlyInAnyOrderElementsOf(OVERLAYS);
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void rendersEveryObjectOnceAndNeverTheSecretTemplate(String overlay) {
        List<String> kinds = Manifests.rendering(overlay).objects().stream().map(object -> object.path("kind").asText()).toList();
        assertThat(kinds).as("the template's placeholders must never be applied over real keys").doesNotContain("Secret");
        assertThat(kinds).containsExactlyInAnyOrderElementsOf(KINDS);
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void everyObjectAndPodCarriesTheRecommendedLabels(String overlay) {
        Manifests.Rendering rendering = Manifests.rendering(overlay);
        List<Map<String, String>> labelled = new ArrayList<>();
        for (JsonNode object : rendering.objects()) {
            labelled.add(labels(object.path("metadata").path("labels")));
        }
        labelled.add(new View(rendering).podLabels());
        for (Map<String, String> labels : labelled) {
            assertThat(labels).containsKeys(RECOMMENDED_LABELS.toArray(String[]::new))
                    .containsEntry(NAME, APP)
                    .containsEntry(INSTANCE, APP + "-" + overlay)
                    .containsEntry(VERSION, Manifests.projectVersion())
                    .containsEntry("app.kubernetes.io/managed-by", "kustomize");
        }
    }

    /** Every selector of the overlay is the Deployment's: name and instance, never the version (selectors are immutable). */
    @ParameterizedTest
    @MethodSource("overlays")
    void everySelectorPicksThisOverlaysPodsByNameAndInstance(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        Map<String, String> selector = view.deployment.getSpec().getSelector().getMatchLabels();
        assertThat(selector).isEqualTo(Map.of(NAME, APP, INSTANCE, APP + "-" + overlay));
        assertThat(view.podLabels()).containsAllEntriesOf(selector);
        assertThat(view.deployment.getSpec().getSelector().getMatchExpressions()).isNullOrEmpty();

        assertThat(view.service.getSpec().getSelector()).as("Service").isEqualTo(selector);
        PodDisruptionBudget pdb = view.rendering.one("PodDisruptionBudget", PodDisruptionBudget.class);
        assertThat(pdb.getSpec().getSelector().getMatchLabels()).as("PodDisruptionBudget").isEqualTo(selector);
        assertThat(pdb.getSpec().getSelector().getMatchExpressions()).isNullOrEmpty();
        NetworkPolicy policy = view.rendering.one("NetworkPolicy", NetworkPolicy.class);
        assertThat(policy.getSpec().getPodSelector().getMatchLabels()).as("NetworkPolicy").isEqualTo(selector);
        assertThat(labels(view.rendering.one("PodMonitor").path("spec").path("selector").path("matchLabels")))
                .as("PodMonitor").isEqualTo(selector);
        for (TopologySpreadConstraint spread : view.pod.getTopologySpreadConstraints()) {
            assertThat(spread.getLabelSelector().getMatchLabels()).as("topology spread").isEqualTo(selector);
        }
    }

    @Test
    void nativeAndJvmCanShareANamespace() {
        View jvm = new View(Manifests.rendering("jvm"));
        View nativeImage = new View(Manifests.rendering("native"));
        assertThat(selects(jvm.deployment.getSpec().getSelector().getMatchLabels(), nativeImage.podLabels())).isFalse();
        assertThat(selects(nativeImage.deployment.getSpec().getSelector().getMatchLabels(), jvm.podLabels())).isFalse();
        Set<String> jvmNames = names(jvm.rendering);
        assertThat(names(nativeImage.rendering)).doesNotContainAnyElementsOf(jvmNames);
        assertThat(hosts(nativeImage.ingress)).as("ingress-nginx refuses a host and path served twice")
                .doesNotContainAnyElementsOf(hosts(jvm.ingress));
    }

    /**
     * Native and JVM run the same service: once their own names, hosts and the JVM's image, options and memory are
     * set aside, the renderings must be identical (alert rules, probes, policies and config included).
     */
    @Test
    void overlaysDifferOnlyInNamesImageJvmOptionsMemoryAndIngressHost() {
        Map<String, JsonNode> jvm = comparable(Manifests.rendering("jvm"));
        Map<String, JsonNode> nativeImage = comparable(Manifests.rendering("native"));
        assertThat(jvm.keySet()).isEqualTo(nativeImage.keySet());
        for (String kind : jvm.keySet()) {
            assertThat(jvm.get(kind)).as(kind).isEqualTo(nativeImage.get(kind));
        }

        Container jvmContainer = new View(Manifests.rendering("jvm")).container;
        Container nativeContainer = new View(Manifests.rendering("native")).container;
        assertThat(nativeContainer.getImage()).isEqualTo(APP + ":native");
        assertThat(jvmContainer.getImage()).isEqualTo(APP + ":jvm");
        assertThat(nativeContainer.getEnv()).extracting(EnvVar::getName).doesNotContain("JAVA_OPTS");
        assertThat(jvmContainer.getEnv()).extracting(EnvVar::getName).contains("JAVA_OPTS");
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void containerPortsAndProbesUseTheApplicationsPorts(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        assertThat(appConfig(view, "quarkus.management.enabled")).contains("true");
        assertThat(view.portNumber("http")).isEqualTo(httpPort(view));
        assertThat(view.portNumber("management")).isEqualTo(managementPort(view));

        assertProbe(view, view.container.getStartupProbe(), "/q/health/started");
        assertProbe(view, view.container.getLivenessProbe(), "/q/health/live");
        assertProbe(view, view.container.getReadinessProbe(), "/q/health/ready");
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void serviceExposesOnlyTheCallbackPort(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        assertThat(view.service.getSpec().getPorts()).extracting(ServicePort::getName).containsExactly("http");
        assertThat(view.containerPort(view.servicePort("http").getTargetPort())).isEqualTo(httpPort(view));
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void podMonitorScrapesTheManagementPortWithTheLabelsTheAlertsUse(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        JsonNode monitor = view.rendering.one("PodMonitor");
        assertThat(monitor.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(monitor.path("spec").has("namespaceSelector")).as("its own namespace only").isFalse();
        assertThat(labels(monitor.path("metadata").path("labels"))).containsKey("release");

        JsonNode endpoints = monitor.path("spec").path("podMetricsEndpoints");
        assertThat(endpoints).hasSize(1);
        assertThat(view.portNumber(endpoints.get(0).path("port").asText())).isEqualTo(managementPort(view));
        assertThat(endpoints.get(0).path("path").asText()).isEqualTo("/q/metrics");

        // The operator copies each pod label onto the series under its sanitised name.
        Set<String> targetLabels = new HashSet<>();
        for (JsonNode label : monitor.path("spec").path("podTargetLabels")) {
            assertThat(view.podLabels()).containsKey(label.asText());
            targetLabels.add(label.asText().replaceAll("[^a-zA-Z0-9_]", "_"));
        }
        Pattern podLabel = Pattern.compile("\\bapp_kubernetes_io_[a-z_]+");
        for (JsonNode alert : alerts(view.rendering)) {
            Matcher used = podLabel.matcher(alert.path("expr").asText() + " " + alert.path("annotations").toString());
            while (used.find()) {
                assertThat(targetLabels).as("%s uses %s, which the PodMonitor does not put on the series",
                        alert.path("alert").asText(), used.group()).contains(used.group());
            }
        }
        assertThat(targetLabels).contains("app_kubernetes_io_name", "app_kubernetes_io_instance");
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void ingressRoutesOnlyTheCallbackPrefixesToTheHttpPort(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        Ingress ingress = view.ingress;
        assertThat(ingress.getSpec().getDefaultBackend()).as("a default backend would route every path").isNull();
        List<String> routed = new ArrayList<>();
        for (IngressRule rule : ingress.getSpec().getRules()) {
            for (HTTPIngressPath path : rule.getHttp().getPaths()) {
                routed.add(path.getPath());
                assertThat(path.getPathType()).as(path.getPath()).isEqualTo("Prefix");
                assertThat(path.getBackend().getService().getName()).isEqualTo(view.service.getMetadata().getName());
                var port = path.getBackend().getService().getPort();
                ServicePort target = port.getName() != null ? view.servicePort(port.getName())
                        : view.service.getSpec().getPorts().stream().filter(p -> p.getPort().equals(port.getNumber()))
                        .findFirst().orElseThrow(() -> new AssertionError("no Service port " + port.getNumber()));
                assertThat(view.containerPort(target.getTargetPort())).as(path.getPath()).isEqualTo(httpPort(view));
            }
        }
        assertThat(routed).containsExactlyInAnyOrderElementsOf(CALLBACK_PREFIXES);
        for (String path : routed) {
            for (String internal : NEVER_ROUTED) {
                assertThat(internal + "/").as("%s must not reach %s", path, internal).doesNotStartWith(path.replaceAll("/?$", "/"));
            }
        }
        assertThat(ingress.getSpec().getTls()).isNotEmpty().allSatisfy(tls -> {
            assertThat(tls.getSecretName()).isNotBlank();
            assertThat(tls.getHosts()).containsExactlyInAnyOrderElementsOf(hosts(ingress));
        });
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void ingressTimeoutsAndBodyLimitLetTheApplicationAnswer(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        Map<String, String> annotations = view.ingress.getMetadata().getAnnotations();
        Duration storeTimeout = Manifests.duration(appConfig(view, "paycallback.callback.store-timeout").orElse("3s"));
        Duration read = Duration.ofSeconds(Long.parseLong(annotations.get("nginx.ingress.kubernetes.io/proxy-read-timeout")));
        Duration send = Duration.ofSeconds(Long.parseLong(annotations.get("nginx.ingress.kubernetes.io/proxy-send-timeout")));
        Duration connect = Duration.ofSeconds(Long.parseLong(annotations.get("nginx.ingress.kubernetes.io/proxy-connect-timeout")));
        assertThat(List.of(read, send, connect)).allSatisfy(timeout -> assertThat(timeout).isLessThan(PROVIDER_BUDGET));
        assertThat(read).as("the application answers a slow store itself").isGreaterThan(storeTimeout);

        long edgeLimit = Manifests.bytes(annotations.get("nginx.ingress.kubernetes.io/proxy-body-size"));
        long callbackLimit = Manifests.bytes(appConfig(view, "paycallback.callback.max-body-size").orElse("64K"));
        long serverLimit = Manifests.bytes(appConfig(view, "quarkus.http.limits.max-body-size").orElse("10M"));
        assertThat(edgeLimit).as("413 in the provider's format comes from the application").isGreaterThan(callbackLimit);
        assertThat(edgeLimit).isLessThanOrEqualTo(serverLimit);
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void podRunsAsUnprivilegedNonRootWithAReadOnlyRootAndItsOwnServiceAccount(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        PodSecurityContext podContext = view.pod.getSecurityContext();
        SecurityContext context = view.container.getSecurityContext();
        assertThat(context.getRunAsNonRoot() != null ? context.getRunAsNonRoot() : podContext.getRunAsNonRoot()).isTrue();
        assertThat(context.getRunAsUser() != null ? context.getRunAsUser() : podContext.getRunAsUser()).isEqualTo(1001L);
        assertThat(context.getReadOnlyRootFilesystem()).isTrue();
        assertThat(context.getAllowPrivilegeEscalation()).isFalse();
        assertThat(context.getPrivileged()).isNotEqualTo(Boolean.TRUE);
        assertThat(context.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(context.getCapabilities().getAdd()).isNullOrEmpty();
        var seccomp = context.getSeccompProfile() != null ? context.getSeccompProfile() : podContext.getSeccompProfile();
        assertThat(seccomp.getType()).isEqualTo("RuntimeDefault");

        VolumeMount tmp = view.mount("/tmp");
        assertThat(view.volume(tmp.getName()).getEmptyDir()).as("writable /tmp on a read-only root").isNotNull();

        ServiceAccount account = view.rendering.one("ServiceAccount", ServiceAccount.class);
        assertThat(view.pod.getServiceAccountName()).isEqualTo(account.getMetadata().getName());
        assertThat(account.getAutomountServiceAccountToken()).as("the service calls no Kubernetes API").isFalse();
        assertThat(view.pod.getAutomountServiceAccountToken()).isFalse();
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void memoryRequestEqualsTheLimit(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        Map<String, Quantity> requests = view.container.getResources().getRequests();
        Map<String, Quantity> limits = view.container.getResources().getLimits();
        assertThat(limits).containsKey("memory");
        assertThat(Quantity.getAmountInBytes(requests.get("memory"))).isEqualTo(Quantity.getAmountInBytes(limits.get("memory")));
        assertThat(requests).as("CPU utilisation, which the HPA scales on, is relative to the request").containsKey("cpu");
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void terminationGraceCoversPreStopAndShutdown(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        long preStop = view.container.getLifecycle().getPreStop().getSleep().getSeconds();
        // The application runs its phases one after another: readiness-down delay, in-flight requests, workers.
        Duration delay = Boolean.parseBoolean(appConfig(view, "quarkus.shutdown.delay-enabled").orElse("false"))
                ? Manifests.duration(appConfig(view, "quarkus.shutdown.delay").orElse("0s")) : Duration.ZERO;
        Duration shutdown = Manifests.duration(appConfig(view, "quarkus.shutdown.timeout").orElse(SHUTDOWN_TIMEOUT_DEFAULT));
        Duration workerGrace = Manifests.duration(appConfig(view, "paycallback.retry.shutdown-grace").orElse("10s"));
        long needed = preStop + delay.toSeconds() + shutdown.toSeconds() + workerGrace.toSeconds();
        assertThat(view.pod.getTerminationGracePeriodSeconds()).isGreaterThanOrEqualTo(needed);
    }

    /** A ConfigMap named after a hash of its content: changing a setting renames it, which rolls the pods. */
    @ParameterizedTest
    @MethodSource("overlays")
    void configChangesRollThePodsThroughTheGeneratedConfigMapName(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        assertThat(view.configMap.getMetadata().getName()).matches(Pattern.quote(APP + "-" + overlay) + "-[a-z0-9]{10}");
        List<EnvFromSource> sources = Optional.ofNullable(view.container.getEnvFrom()).orElse(List.of());
        assertThat(sources).extracting(source -> source.getConfigMapRef().getName()).containsExactly(view.configMap.getMetadata().getName());
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void everyReferencedSecretAndConfigMapKeyExists(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        Map<String, String> secretKeys = secret.getStringData();
        Set<String> referenced = new HashSet<>();
        for (EnvVar env : Optional.ofNullable(view.container.getEnv()).orElse(List.of())) {
            if (env.getValueFrom() == null) {
                continue;
            }
            var secretRef = env.getValueFrom().getSecretKeyRef();
            var configMapRef = env.getValueFrom().getConfigMapKeyRef();
            if (secretRef != null) {
                assertThat(secretRef.getName()).as("the Secret is made by hand under the template's name").isEqualTo(secret.getMetadata().getName());
                referenced.add(secretRef.getKey());
            }
            if (configMapRef != null) {
                assertThat(configMapRef.getName()).isEqualTo(view.configMap.getMetadata().getName());
                assertThat(view.configMap.getData()).containsKey(configMapRef.getKey());
            }
        }
        for (EnvFromSource source : Optional.ofNullable(view.container.getEnvFrom()).orElse(List.of())) {
            assertThat(source.getSecretRef()).as("the template also holds the properties file; pick env keys one by one").isNull();
        }
        for (Volume volume : view.pod.getVolumes()) {
            if (volume.getSecret() != null) {
                assertThat(volume.getSecret().getSecretName()).isEqualTo(secret.getMetadata().getName());
                volume.getSecret().getItems().forEach(item -> referenced.add(item.getKey()));
            }
        }
        assertThat(secretKeys).containsKeys(referenced.toArray(String[]::new));
        assertThat(referenced).as("keys in the template that nothing reads").containsAll(secretKeys.keySet());
        assertThat(secretKeys.values()).allSatisfy(value -> assertThat(value).contains("REPLACE_ME"));
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void configurationFileIsMountedWhereTheImageReadsIt(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        String workdir = Manifests.workdir("deploy/Dockerfile." + overlay);
        VolumeMount config = view.mount(workdir + "/config");
        assertThat(config.getReadOnly()).isTrue();
        List<KeyToPath> items = view.volume(config.getName()).getSecret().getItems();
        assertThat(items).extracting(KeyToPath::getPath).containsExactly("application.properties");
    }

    /**
     * The keys are taken from the configuration mappings themselves: tuning (keys with a default) may be in the
     * ConfigMap, every key without a default (merchant keys, destinations, the bearer tokens) must be shown in the
     * Secret template, and nothing may be spelled in a way the application does not read.
     */
    @ParameterizedTest
    @MethodSource("overlays")
    void configMapAndSecretHoldOnlyKeysTheApplicationReads(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        List<ConfigKeys.Key> keys = Manifests.applicationKeys();
        for (String name : view.configMap.getData().keySet()) {
            if (name.startsWith("PAYCALLBACK_")) {
                assertThat(keys).as(name).anyMatch(key -> key.defaultValue().isPresent() && !key.pattern().contains("*")
                        && Manifests.envName(key.pattern()).equals(name));
            } else {
                assertThat(name).startsWith("QUARKUS_DATASOURCE_");
            }
        }

        Properties file = Manifests.properties(secret.getStringData().get("application.properties"));
        Set<String> supplied = new HashSet<>(file.stringPropertyNames());
        for (String property : supplied) {
            assertThat(keys).as(property).anyMatch(key -> key.matches(property));
        }
        for (ConfigKeys.Key key : keys) {
            if (key.defaultValue().isPresent()) {
                continue;
            }
            boolean inFile = supplied.stream().anyMatch(key::matches);
            boolean asEnv = !key.pattern().contains("*") && secret.getStringData().containsKey(Manifests.envName(key.pattern()));
            assertThat(inFile || asEnv).as("%s is not shown in the Secret template", key.pattern()).isTrue();
        }
        assertThat(secret.getStringData()).containsKeys("QUARKUS_DATASOURCE_USERNAME", "QUARKUS_DATASOURCE_PASSWORD");
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void autoscalerAndDisruptionBudgetLetADrainTakeOnePodAtATime(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        assertThat(view.deployment.getSpec().getReplicas()).as("the HPA owns the replica count").isNull();

        HorizontalPodAutoscaler hpa = view.rendering.one("HorizontalPodAutoscaler", HorizontalPodAutoscaler.class);
        var target = hpa.getSpec().getScaleTargetRef();
        assertThat(target.getApiVersion()).isEqualTo("apps/v1");
        assertThat(target.getKind()).isEqualTo("Deployment");
        assertThat(target.getName()).isEqualTo(view.deployment.getMetadata().getName());

        PodDisruptionBudget pdb = view.rendering.one("PodDisruptionBudget", PodDisruptionBudget.class);
        assertThat(pdb.getSpec().getMinAvailable()).as("minAvailable: 1 under an HPA max of 10 allows 9 evictions").isNull();
        assertThat(pdb.getSpec().getMaxUnavailable()).isEqualTo(new IntOrString(1));
        assertThat(pdb.getSpec().getUnhealthyPodEvictionPolicy()).as("a pod that is not ready must not block a drain")
                .isEqualTo("AlwaysAllow");
        assertThat(hpa.getSpec().getMinReplicas()).as("one pod still serves while another is evicted").isGreaterThanOrEqualTo(2);
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void networkPolicyOpensOnlyTheApplicationsPortsAndScopesEveryDestination(String overlay) {
        View view = new View(Manifests.rendering(overlay));
        NetworkPolicy policy = view.rendering.one("NetworkPolicy", NetworkPolicy.class);
        assertThat(policy.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");

        Set<Integer> inbound = new HashSet<>();
        for (NetworkPolicyIngressRule rule : policy.getSpec().getIngress()) {
            assertThat(rule.getPorts()).as("an ingress rule without ports opens every port").isNotEmpty();
            assertThat(rule.getFrom()).as("an ingress rule without peers admits everyone").isNotEmpty();
            rule.getPorts().forEach(port -> inbound.add(view.policyPort(port)));
            rule.getFrom().forEach(ManifestsTest::assertPeerKeepsItsOwnSelector);
        }
        assertThat(inbound).containsExactlyInAnyOrder(httpPort(view), managementPort(view));

        Map<Integer, Set<NetworkPolicyPeer>> outbound = new HashMap<>();
        for (NetworkPolicyEgressRule rule : policy.getSpec().getEgress()) {
            assertThat(rule.getTo()).as("an egress rule without peers reaches everything").isNotEmpty();
            assertThat(rule.getPorts()).as("an egress rule without ports opens every port").isNotEmpty();
            for (NetworkPolicyPort port : rule.getPorts()) {
                outbound.computeIfAbsent(view.policyPort(port), any -> new HashSet<>()).addAll(rule.getTo());
            }
            for (NetworkPolicyPeer peer : rule.getTo()) {
                assertPeerKeepsItsOwnSelector(peer);
                if (peer.getIpBlock() != null) {
                    assertThat(PLACEHOLDER_RANGES).as("%s: a placeholder must route nowhere until an operator replaces it",
                            peer.getIpBlock().getCidr()).anyMatch(range -> peer.getIpBlock().getCidr().startsWith(range));
                }
            }
        }
        URI database = URI.create(view.configMap.getData().get("QUARKUS_DATASOURCE_REACTIVE_URL"));
        URI jdbc = URI.create(view.configMap.getData().get("QUARKUS_DATASOURCE_JDBC_URL").substring("jdbc:".length()));
        assertThat(outbound).containsKeys(53, 443, database.getPort(), jdbc.getPort());
        assertThat(outbound.get(53)).as("DNS goes to the cluster's resolver").singleElement().satisfies(dns -> {
            assertThat(dns.getNamespaceSelector().getMatchLabels()).containsEntry("kubernetes.io/metadata.name", "kube-system");
            assertThat(dns.getPodSelector().getMatchLabels()).isEqualTo(Map.of("k8s-app", "kube-dns"));
        });
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void alertsUseOnlyMetricsAndLabelValuesTheApplicationExports(String overlay) {
        JsonNode rule = Manifests.rendering(overlay).one("PrometheusRule");
        assertThat(rule.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(labels(rule.path("metadata").path("labels"))).containsKeys(RULE_SELECTOR_LABELS.toArray(String[]::new));

        Pattern appMetric = Pattern.compile("\\bpaycallback_[a-z0-9_]+");
        Pattern matcher = Pattern.compile("\\b([a-z_]+)\\s*(=~|=)\\s*\"([^\"]*)\"");
        Set<String> names = new HashSet<>();
        for (JsonNode alert : alerts(Manifests.rendering(overlay))) {
            String name = alert.path("alert").asText();
            String expr = alert.path("expr").asText();
            assertThat(name).as("recording rules are not expected here").isNotBlank();
            names.add(name);
            assertThat(alert.path("labels").path("severity").asText()).as(name).isIn("warning", "critical");
            assertThat(alert.path("annotations").path("summary").asText()).as(name).isNotBlank();

            Set<String> metrics = new HashSet<>();
            Matcher found = appMetric.matcher(expr);
            while (found.find()) {
                metrics.add(found.group());
            }
            assertThat(metrics).as("%s uses a metric the application does not export", name).isSubsetOf(APP_METRICS);
            assertThat(!metrics.isEmpty() || Pattern.compile("\\b" + SCRAPE_HEALTH + "\\{").matcher(expr).find())
                    .as("%s watches no application metric", name).isTrue();

            Matcher label = matcher.matcher(expr);
            while (label.find()) {
                Set<String> allowed = LABEL_VALUES.get(label.group(1));
                if (allowed != null) {
                    List<String> values = label.group(2).equals("=~") ? List.of(label.group(3).split("\\|")) : List.of(label.group(3));
                    assertThat(values).as("%s: %s values", name, label.group(1)).isSubsetOf(allowed);
                }
            }
        }
        assertThat(names).contains("PayCallbackStalePending", "PayCallbackDeadLetters", "PayCallbackGateRejecting",
                "PayCallbackStoreFailures", "PayCallbackSlowAnswers", "PayCallbackTargetDown");
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void everyAlertLinksItsRunbookSectionInTheDocs(String overlay) {
        for (JsonNode alert : alerts(Manifests.rendering(overlay))) {
            String name = alert.path("alert").asText();
            URI runbook = URI.create(alert.path("annotations").path("runbook_url").asText());
            assertThat(runbook.getScheme()).as(name).isEqualTo("https");
            assertThat(runbook.getPath()).as(name).contains(RUNBOOK_BLOB).endsWith(".md");
            Path page = Manifests.ROOT.resolve(runbook.getPath().substring(runbook.getPath().indexOf(RUNBOOK_BLOB) + RUNBOOK_BLOB.length()));
            assertThat(page).as("%s: its runbook's page", name).isRegularFile();
            assertThat(runbook.getFragment()).as("%s: its runbook is the section of its name", name).isEqualTo(name.toLowerCase(Locale.ROOT));
            assertThat(Markdown.read(page).anchors()).as("%s: %s has no section #%s", name, page, runbook.getFragment())
                    .contains(runbook.getFragment());
        }
    }

    /** promtool runs the tests (.ci/manifests); this checks that they exercise every alert both ways. */
    @Test
    void promtoolTestsMakeEveryAlertFireAndStayQuiet() {
        Map<String, Set<Boolean>> fired = new TreeMap<>();
        for (JsonNode test : Manifests.tree("k8s/tests/alerts.test.yaml").path("tests")) {
            for (JsonNode check : test.path("alert_rule_test")) {
                fired.computeIfAbsent(check.path("alertname").asText(), any -> new HashSet<>()).add(!check.path("exp_alerts").isEmpty());
            }
        }
        Set<String> alerts = alerts(Manifests.rendering("native")).stream().map(alert -> alert.path("alert").asText()).collect(Collectors.toSet());
        assertThat(fired.keySet()).containsExactlyInAnyOrderElementsOf(alerts);
        assertThat(fired).allSatisfy((alert, outcomes) -> assertThat(outcomes).as(alert).containsExactlyInAnyOrder(true, false));
        assertThat(Manifests.tree("k8s/tests/alerts.test.yaml").path("rule_files").get(0).asText())
                .as("the file .ci/manifests writes next to the tests").isEqualTo("pay-callback.rules.yaml");
    }

    @Test
    void jvmOverlayRunsTheImagesOptionsWithinItsMemoryLimit() {
        String imageOptions = Manifests.env("deploy/Dockerfile.jvm", "JAVA_OPTS");
        Container jvm = new View(Manifests.rendering("jvm")).container;
        String deployedOptions = jvm.getEnv().stream().filter(env -> env.getName().equals("JAVA_OPTS"))
                .map(EnvVar::getValue).findFirst().orElseThrow(() -> new AssertionError("no JAVA_OPTS in the JVM overlay"));
        assertThat(deployedOptions).isEqualTo(imageOptions);

        long capped = 0;
        for (String option : List.of("-Xmx", "-XX:MaxMetaspaceSize=", "-XX:ReservedCodeCacheSize=", "-XX:MaxDirectMemorySize=")) {
            Matcher value = Pattern.compile(Pattern.quote(option) + "(\\w+)").matcher(imageOptions);
            assertThat(value.find()).as("JAVA_OPTS must cap %s", option).isTrue();
            capped += Manifests.bytes(value.group(1));
        }
        // Thread stacks, GC structures and malloc arenas come on top of the capped pools.
        long overhead = 64L << 20;
        Quantity limit = jvm.getResources().getLimits().get("memory");
        assertThat(Quantity.getAmountInBytes(limit).longValue()).isGreaterThanOrEqualTo(capped + overhead);
    }

    /** The typed objects of one rendering that most checks look at. */
    private static final class View {
        final Manifests.Rendering rendering;
        final Deployment deployment;
        final PodSpec pod;
        final Container container;
        final ConfigMap configMap;
        final Service service;
        final Ingress ingress;

        View(Manifests.Rendering rendering) {
            this.rendering = rendering;
            this.deployment = rendering.one("Deployment", Deployment.class);
            this.pod = deployment.getSpec().getTemplate().getSpec();
            this.container = pod.getContainers().stream().filter(c -> c.getName().equals(APP)).findFirst()
                    .orElseThrow(() -> new AssertionError("no container named " + APP));
            this.configMap = rendering.one("ConfigMap", ConfigMap.class);
            this.service = rendering.one("Service", Service.class);
            this.ingress = rendering.one("Ingress", Ingress.class);
        }

        Map<String, String> podLabels() {
            return deployment.getSpec().getTemplate().getMetadata().getLabels();
        }

        int portNumber(String name) {
            return container.getPorts().stream().filter(port -> name.equals(port.getName())).map(ContainerPort::getContainerPort)
                    .findFirst().orElseThrow(() -> new AssertionError("no container port named " + name));
        }

        /** A probe or Service target port, by number or by the container port's name. */
        int containerPort(IntOrString port) {
            return port.getStrVal() != null ? portNumber(port.getStrVal()) : port.getIntVal();
        }

        int policyPort(NetworkPolicyPort port) {
            return containerPort(Objects.requireNonNull(port.getPort(), "NetworkPolicy port without a number"));
        }

        ServicePort servicePort(String name) {
            return service.getSpec().getPorts().stream().filter(port -> name.equals(port.getName())).findFirst()
                    .orElseThrow(() -> new AssertionError("no Service port named " + name));
        }

        VolumeMount mount(String path) {
            return container.getVolumeMounts().stream().filter(mount -> mount.getMountPath().equals(path)).findFirst()
                    .orElseThrow(() -> new AssertionError("nothing mounted at " + path));
        }

        Volume volume(String name) {
            return pod.getVolumes().stream().filter(volume -> volume.getName().equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError("no volume " + name));
        }
    }

    private Optional<String> appConfig(View view, String property) {
        String fromConfigMap = view.configMap.getData().get(Manifests.envName(property));
        if (fromConfigMap != null) {
            return Optional.of(fromConfigMap);
        }
        String prod = appProperties.getProperty("%prod." + property);
        return Optional.ofNullable(prod != null ? prod : appProperties.getProperty(property));
    }

    private int httpPort(View view) {
        return Integer.parseInt(appConfig(view, "quarkus.http.port").orElse("8080"));
    }

    private int managementPort(View view) {
        return Integer.parseInt(appConfig(view, "quarkus.management.port").orElse("9000"));
    }

    private void assertProbe(View view, Probe probe, String path) {
        assertThat(probe).as(path).isNotNull();
        HTTPGetAction get = probe.getHttpGet();
        assertThat(get.getPath()).isEqualTo(path);
        assertThat(view.containerPort(get.getPort())).as(path).isEqualTo(managementPort(view));
    }

    /** kustomize's includeSelectors would add the pods' own labels to peer selectors too, pointing them at nothing. */
    private static void assertPeerKeepsItsOwnSelector(NetworkPolicyPeer peer) {
        Map<String, String> selector = peer.getPodSelector() == null ? null : peer.getPodSelector().getMatchLabels();
        assertThat(selector == null ? Map.<String, String>of() : selector).as("peer pod selector").doesNotContainKeys(NAME, INSTANCE);
    }

    private static List<JsonNode> alerts(Manifests.Rendering rendering) {
        List<JsonNode> alerts = new ArrayList<>();
        for (JsonNode group : rendering.one("PrometheusRule").path("spec").path("groups")) {
            group.path("rules").forEach(alerts::add);
        }
        return alerts;
    }

    private static Map<String, String> labels(JsonNode node) {
        Map<String, String> labels = new TreeMap<>();
        node.fields().forEachRemaining(field -> labels.put(field.getKey(), field.getValue().asText()));
        return labels;
    }

    private static boolean selects(Map<String, String> selector, Map<String, String> labels) {
        return selector.entrySet().stream().allMatch(entry -> entry.getValue().equals(labels.get(entry.getKey())));
    }

    private static Set<String> names(Manifests.Rendering rendering) {
        return rendering.objects().stream().map(object -> object.path("kind").asText() + "/" + object.path("metadata").path("name").asText())
                .collect(Collectors.toSet());
    }

    private static Set<String> hosts(Ingress ingress) {
        return ingress.getSpec().getRules().stream().map(IngressRule::getHost).collect(Collectors.toSet());
    }

    /**
     * The rendering by kind, with what may differ between overlays taken out: the overlay's name wherever it appears,
     * the ingress host and certificate, and the container's image, resources and JAVA_OPTS.
     */
    private static Map<String, JsonNode> comparable(Manifests.Rendering rendering) {
        Map<String, JsonNode> byKind = new TreeMap<>();
        for (JsonNode object : rendering.objects()) {
            String text = object.toString().replace(APP + "-" + rendering.overlay(), APP + "-OVERLAY");
            ObjectNode copy = (ObjectNode) Manifests.parse(text);
            switch (copy.path("kind").asText()) {
                case "Ingress" -> {
                    ((ObjectNode) copy.path("spec")).remove("tls");
                    copy.path("spec").path("rules").forEach(rule -> ((ObjectNode) rule).remove("host"));
                }
                case "Deployment" -> {
                    for (JsonNode container : copy.path("spec").path("template").path("spec").path("containers")) {
                        ((ObjectNode) container).remove(List.of("image", "resources"));
                        ArrayNode env = (ArrayNode) container.path("env");
                        for (int i = env.size() - 1; i >= 0; i--) {
                            if (env.get(i).path("name").asText().equals("JAVA_OPTS")) {
                                env.remove(i);
                            }
                        }
                    }
                }
                default -> {
                }
            }
            byKind.put(copy.path("kind").asText(), copy);
        }
        return byKind;
    }
}
