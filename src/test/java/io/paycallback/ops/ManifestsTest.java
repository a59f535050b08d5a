package io.paycallback.ops;

import com.fasterxml.jackson.databind.JsonNode;
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
import io.fabric8.kubernetes.api.model.ServicePort;
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
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks k8s/ and deploy/ against the application's real configuration, so a port, path, metric or key renamed on
 * one side fails here rather than in a rollout. Plain JUnit: no application is started.
 */
class ManifestsTest {

    private static final String APP = "pay-callback";
    private static final Set<String> CALLBACK_PREFIXES = Set.of("/pay/callback", "/refund/callback");
    private static final List<String> NEVER_ROUTED = List.of("/internal", "/admin", "/q");
    /** What providers wait for an answer before they count the push as failed. */
    private static final Duration PROVIDER_BUDGET = Duration.ofSeconds(5);
    private static final String SHUTDOWN_TIMEOUT_DEFAULT = "15s";

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
            "paycallback_quarantine_rows");
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
    private final Deployment deployment = Manifests.read("k8s/deployment.yaml", Deployment.class);
    private final ConfigMap configMap = Manifests.read("k8s/configmap.yaml", ConfigMap.class);
    private final Secret secret = Manifests.read("k8s/secret-template.yaml", Secret.class);
    private final Service service = Manifests.read("k8s/service.yaml", Service.class);
    private final Ingress ingress = Manifests.read("k8s/ingress.yaml", Ingress.class);
    private final PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    private final Container container = container(pod);
    private final Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();

    @Test
    void kustomizationListsEveryManifestExceptTheSecretTemplate() throws IOException {
        Set<String> files;
        try (Stream<Path> list = Files.list(Manifests.ROOT.resolve("k8s"))) {
            files = list.map(path -> path.getFileName().toString())
                    .filter(name -> name.endsWith(".yaml"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
        files.remove("kustomization.yaml");
        assertThat(files).as("the template's placeholders must never be applied over real keys").contains("secret-template.yaml");
        files.remove("secret-template.yaml");
        assertThat(resources("k8s/kustomization.yaml")).containsExactlyInAnyOrderElementsOf(files);
        assertThat(resources("k8s/jvm/kustomization.yaml")).containsExactly("..");
    }

    @Test
    void containerPortsAndProbesUseTheApplicationsPorts() {
        assertThat(appConfig("quarkus.management.enabled")).contains("true");
        assertThat(portNumber("http")).isEqualTo(httpPort());
        assertThat(portNumber("management")).isEqualTo(managementPort());

        assertProbe(container.getStartupProbe(), "/q/health/started");
        assertProbe(container.getLivenessProbe(), "/q/health/live");
        assertProbe(container.getReadinessProbe(), "/q/health/ready");

        Map<String, String> annotations = deployment.getSpec().getTemplate().getMetadata().getAnnotations();
        assertThat(annotations).containsEntry("prometheus.io/scrape", "true")
                .containsEntry("prometheus.io/path", "/q/metrics")
                .containsEntry("prometheus.io/port", String.valueOf(managementPort()));
    }

    @Test
    void serviceTargetsTheContainerPortsAndSelectsThePods() {
        assertThat(podLabels).containsAllEntriesOf(service.getSpec().getSelector());
        assertThat(containerPort(servicePort("http").getTargetPort())).isEqualTo(httpPort());
        assertThat(containerPort(servicePort("management").getTargetPort())).isEqualTo(managementPort());
    }

    @Test
    void ingressRoutesOnlyTheCallbackPrefixesToTheHttpPort() {
        assertThat(ingress.getSpec().getDefaultBackend()).as("a default backend would route every path").isNull();
        List<String> routed = new ArrayList<>();
        for (IngressRule rule : ingress.getSpec().getRules()) {
            for (HTTPIngressPath path : rule.getHttp().getPaths()) {
                routed.add(path.getPath());
                assertThat(path.getPathType()).as(path.getPath()).isEqualTo("Prefix");
                assertThat(path.getBackend().getService().getName()).isEqualTo(service.getMetadata().getName());
                var port = path.getBackend().getService().getPort();
                ServicePort target = port.getName() != null ? servicePort(port.getName())
                        : service.getSpec().getPorts().stream().filter(p -> p.getPort().equals(port.getNumber()))
                        .findFirst().orElseThrow(() -> new AssertionError("no Service port " + port.getNumber()));
                assertThat(containerPort(target.getTargetPort())).as(path.getPath()).isEqualTo(httpPort());
            }
        }
        assertThat(routed).containsExactlyInAnyOrderElementsOf(CALLBACK_PREFIXES);
        for (String path : routed) {
            for (String internal : NEVER_ROUTED) {
                assertThat(internal + "/").as("%s must not reach %s", path, internal).doesNotStartWith(path.replaceAll("/?$", "/"));
            }
        }
        assertThat(ingress.getSpec().getTls()).isNotEmpty().allSatisfy(tls -> assertThat(tls.getSecretName()).isNotBlank());
    }

    @Test
    void ingressTimeoutsAndBodyLimitLetTheApplicationAnswer() {
        Map<String, String> annotations = ingress.getMetadata().getAnnotations();
        Duration storeTimeout = Manifests.duration(appConfig("paycallback.callback.store-timeout").orElse("3s"));
        Duration read = Duration.ofSeconds(Long.parseLong(annotations.get("nginx.ingress.kubernetes.io/proxy-read-timeout")));
        Duration send = Duration.ofSeconds(Long.parseLong(annotations.get("nginx.ingress.kubernetes.io/proxy-send-timeout")));
        Duration connect = Duration.ofSeconds(Long.parseLong(annotations.get("nginx.ingress.kubernetes.io/proxy-connect-timeout")));
        assertThat(List.of(read, send, connect)).allSatisfy(timeout -> assertThat(timeout).isLessThan(PROVIDER_BUDGET));
        assertThat(read).as("the application answers a slow store itself").isGreaterThan(storeTimeout);

        long edgeLimit = Manifests.bytes(annotations.get("nginx.ingress.kubernetes.io/proxy-body-size"));
        long callbackLimit = Manifests.bytes(appConfig("paycallback.callback.max-body-size").orElse("64K"));
        long serverLimit = Manifests.bytes(appConfig("quarkus.http.limits.max-body-size").orElse("10M"));
        assertThat(edgeLimit).as("413 in the provider's format comes from the application").isGreaterThan(callbackLimit);
        assertThat(edgeLimit).isLessThanOrEqualTo(serverLimit);
    }

    @Test
    void podRunsAsUnprivilegedNonRootWithAReadOnlyRoot() {
        PodSecurityContext podContext = pod.getSecurityContext();
        SecurityContext context = container.getSecurityContext();
        assertThat(context.getRunAsNonRoot() != null ? context.getRunAsNonRoot() : podContext.getRunAsNonRoot()).isTrue();
        assertThat(context.getRunAsUser() != null ? context.getRunAsUser() : podContext.getRunAsUser()).isEqualTo(1001L);
        assertThat(context.getReadOnlyRootFilesystem()).isTrue();
        assertThat(context.getAllowPrivilegeEscalation()).isFalse();
        assertThat(context.getPrivileged()).isNotEqualTo(Boolean.TRUE);
        assertThat(context.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(context.getCapabilities().getAdd()).isNullOrEmpty();
        var seccomp = context.getSeccompProfile() != null ? context.getSeccompProfile() : podContext.getSeccompProfile();
        assertThat(seccomp.getType()).isEqualTo("RuntimeDefault");

        VolumeMount tmp = mount("/tmp");
        assertThat(volume(tmp.getName()).getEmptyDir()).as("writable /tmp on a read-only root").isNotNull();
    }

    @Test
    void terminationGraceCoversPreStopAndShutdown() {
        long preStop = container.getLifecycle().getPreStop().getSleep().getSeconds();
        // The application runs its phases one after another: readiness-down delay, in-flight requests, workers.
        Duration delay = Boolean.parseBoolean(appConfig("quarkus.shutdown.delay-enabled").orElse("false"))
                ? Manifests.duration(appConfig("quarkus.shutdown.delay").orElse("0s")) : Duration.ZERO;
        Duration shutdown = Manifests.duration(appConfig("quarkus.shutdown.timeout").orElse(SHUTDOWN_TIMEOUT_DEFAULT));
        Duration workerGrace = Manifests.duration(appConfig("paycallback.retry.shutdown-grace").orElse("10s"));
        long needed = preStop + delay.toSeconds() + shutdown.toSeconds() + workerGrace.toSeconds();
        assertThat(pod.getTerminationGracePeriodSeconds()).isGreaterThanOrEqualTo(needed);
    }

    @Test
    void everyReferencedSecretAndConfigMapKeyExists() {
        Map<String, String> secretKeys = secret.getStringData();
        Set<String> referenced = new HashSet<>();
        for (EnvVar env : Optional.ofNullable(container.getEnv()).orElse(List.of())) {
            if (env.getValueFrom() == null) {
                continue;
            }
            var secretRef = env.getValueFrom().getSecretKeyRef();
            var configMapRef = env.getValueFrom().getConfigMapKeyRef();
            if (secretRef != null) {
                assertThat(secretRef.getName()).isEqualTo(secret.getMetadata().getName());
                referenced.add(secretRef.getKey());
            }
            if (configMapRef != null) {
                assertThat(configMapRef.getName()).isEqualTo(configMap.getMetadata().getName());
                assertThat(configMap.getData()).containsKey(configMapRef.getKey());
            }
        }
        for (EnvFromSource source : Optional.ofNullable(container.getEnvFrom()).orElse(List.of())) {
            assertThat(source.getSecretRef()).as("the template also holds the properties file; pick env keys one by one").isNull();
            assertThat(source.getConfigMapRef().getName()).isEqualTo(configMap.getMetadata().getName());
        }
        for (Volume volume : pod.getVolumes()) {
            if (volume.getSecret() != null) {
                assertThat(volume.getSecret().getSecretName()).isEqualTo(secret.getMetadata().getName());
                volume.getSecret().getItems().forEach(item -> referenced.add(item.getKey()));
            }
        }
        assertThat(secretKeys).containsKeys(referenced.toArray(String[]::new));
        assertThat(referenced).as("keys in the template that nothing reads").containsAll(secretKeys.keySet());
        assertThat(secretKeys.values()).allSatisfy(value -> assertThat(value).contains("REPLACE_ME"));
    }

    @Test
    void configurationFileIsMountedWhereBothImagesReadIt() {
        String workdir = Manifests.workdir("deploy/Dockerfile.native");
        assertThat(Manifests.workdir("deploy/Dockerfile.jvm")).isEqualTo(workdir);
        VolumeMount config = mount(workdir + "/config");
        assertThat(config.getReadOnly()).isTrue();
        List<KeyToPath> items = volume(config.getName()).getSecret().getItems();
        assertThat(items).extracting(KeyToPath::getPath).containsExactly("application.properties");
    }

    /**
     * The keys are taken from PayCallbackConfig itself: tuning (keys with a default) may be in the ConfigMap, every
     * key without a default (merchant keys, destinations, the bearer tokens) must be shown in the Secret template, and
     * nothing may be spelled in a way the application does not read.
     */
    @Test
    void configMapAndSecretHoldOnlyKeysTheApplicationReads() {
        List<Manifests.ConfigKey> keys = Manifests.applicationKeys();
        for (String name : configMap.getData().keySet()) {
            if (name.startsWith("PAYCALLBACK_")) {
                assertThat(keys).as(name).anyMatch(key -> key.hasDefault() && !key.pattern().contains("*")
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
        for (Manifests.ConfigKey key : keys) {
            if (key.hasDefault()) {
                continue;
            }
            boolean inFile = supplied.stream().anyMatch(key::matches);
            boolean asEnv = !key.pattern().contains("*") && secret.getStringData().containsKey(Manifests.envName(key.pattern()));
            assertThat(inFile || asEnv).as("%s is not shown in the Secret template", key.pattern()).isTrue();
        }
        assertThat(secret.getStringData()).containsKeys("QUARKUS_DATASOURCE_USERNAME", "QUARKUS_DATASOURCE_PASSWORD");
    }

    @Test
    void autoscalerAndDisruptionBudgetTargetThePods() {
        assertThat(deployment.getSpec().getReplicas()).as("the HPA owns the replica count").isNull();
        assertThat(podLabels).containsAllEntriesOf(deployment.getSpec().getSelector().getMatchLabels());

        HorizontalPodAutoscaler hpa = Manifests.read("k8s/hpa.yaml", HorizontalPodAutoscaler.class);
        var target = hpa.getSpec().getScaleTargetRef();
        assertThat(target.getApiVersion()).isEqualTo("apps/v1");
        assertThat(target.getKind()).isEqualTo("Deployment");
        assertThat(target.getName()).isEqualTo(deployment.getMetadata().getName());
        assertThat(container.getResources().getRequests()).as("CPU utilisation is relative to the request").containsKey("cpu");

        PodDisruptionBudget pdb = Manifests.read("k8s/pdb.yaml", PodDisruptionBudget.class);
        assertThat(podLabels).containsAllEntriesOf(pdb.getSpec().getSelector().getMatchLabels());
        assertThat(pdb.getSpec().getSelector().getMatchExpressions()).isNullOrEmpty();
        assertThat(hpa.getSpec().getMinReplicas()).as("a node drain must be able to evict a pod")
                .isGreaterThan(pdb.getSpec().getMinAvailable().getIntVal());
    }

    @Test
    void networkPolicyOpensOnlyTheApplicationsPortsAndItsDependencies() {
        NetworkPolicy policy = Manifests.read("k8s/networkpolicy.yaml", NetworkPolicy.class);
        assertThat(podLabels).containsAllEntriesOf(policy.getSpec().getPodSelector().getMatchLabels());
        assertThat(policy.getSpec().getPolicyTypes()).containsExactlyInAnyOrder("Ingress", "Egress");

        Set<Integer> inbound = new HashSet<>();
        for (NetworkPolicyIngressRule rule : policy.getSpec().getIngress()) {
            assertThat(rule.getPorts()).as("an ingress rule without ports opens every port").isNotEmpty();
            rule.getPorts().forEach(port -> inbound.add(policyPort(port)));
        }
        assertThat(inbound).containsExactlyInAnyOrder(httpPort(), managementPort());

        Set<Integer> outbound = new HashSet<>();
        for (NetworkPolicyEgressRule rule : policy.getSpec().getEgress()) {
            rule.getPorts().forEach(port -> outbound.add(policyPort(port)));
        }
        URI database = URI.create(configMap.getData().get("QUARKUS_DATASOURCE_REACTIVE_URL"));
        URI jdbc = URI.create(configMap.getData().get("QUARKUS_DATASOURCE_JDBC_URL").substring("jdbc:".length()));
        assertThat(outbound).contains(53, 443, database.getPort(), jdbc.getPort());
    }

    @Test
    void alertsUseOnlyMetricsAndLabelValuesTheApplicationExports() {
        JsonNode rule = Manifests.tree("k8s/prometheusrule.yaml");
        assertThat(rule.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(rule.path("kind").asText()).isEqualTo("PrometheusRule");

        Pattern appMetric = Pattern.compile("\\bpaycallback_[a-z0-9_]+");
        Pattern matcher = Pattern.compile("\\b([a-z_]+)\\s*(=~|=)\\s*\"([^\"]*)\"");
        Set<String> alerts = new HashSet<>();
        for (JsonNode group : rule.path("spec").path("groups")) {
            for (JsonNode alert : group.path("rules")) {
                String name = alert.path("alert").asText();
                String expr = alert.path("expr").asText();
                assertThat(name).as("recording rules are not expected here").isNotBlank();
                alerts.add(name);
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
        }
        assertThat(alerts).contains("PayCallbackStalePending", "PayCallbackDeadLetters", "PayCallbackGateRejecting",
                "PayCallbackStoreFailures", "PayCallbackTargetDown");
    }

    @Test
    void jvmOverlayRunsTheImagesOptionsWithinItsMemoryLimit() {
        String imageOptions = Manifests.env("deploy/Dockerfile.jvm", "JAVA_OPTS");
        Deployment patch = Manifests.read("k8s/jvm/deployment-patch.yaml", Deployment.class);
        assertThat(patch.getMetadata().getName()).isEqualTo(deployment.getMetadata().getName());
        Container jvm = container(patch.getSpec().getTemplate().getSpec());
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

    private Optional<String> appConfig(String property) {
        String fromConfigMap = configMap.getData().get(Manifests.envName(property));
        if (fromConfigMap != null) {
            return Optional.of(fromConfigMap);
        }
        String prod = appProperties.getProperty("%prod." + property);
        return Optional.ofNullable(prod != null ? prod : appProperties.getProperty(property));
    }

    private int httpPort() {
        return Integer.parseInt(appConfig("quarkus.http.port").orElse("8080"));
    }

    private int managementPort() {
        return Integer.parseInt(appConfig("quarkus.management.port").orElse("9000"));
    }

    private static Container container(PodSpec pod) {
        return pod.getContainers().stream().filter(c -> c.getName().equals(APP)).findFirst()
                .orElseThrow(() -> new AssertionError("no container named " + APP));
    }

    private int portNumber(String name) {
        return container.getPorts().stream().filter(port -> name.equals(port.getName())).map(ContainerPort::getContainerPort)
                .findFirst().orElseThrow(() -> new AssertionError("no container port named " + name));
    }

    /** A probe or Service target port, by number or by the container port's name. */
    private int containerPort(IntOrString port) {
        return port.getStrVal() != null ? portNumber(port.getStrVal()) : port.getIntVal();
    }

    private ServicePort servicePort(String name) {
        return service.getSpec().getPorts().stream().filter(port -> name.equals(port.getName())).findFirst()
                .orElseThrow(() -> new AssertionError("no Service port named " + name));
    }

    private void assertProbe(Probe probe, String path) {
        assertThat(probe).as(path).isNotNull();
        HTTPGetAction get = probe.getHttpGet();
        assertThat(get.getPath()).isEqualTo(path);
        assertThat(containerPort(get.getPort())).as(path).isEqualTo(managementPort());
    }

    private VolumeMount mount(String path) {
        return container.getVolumeMounts().stream().filter(mount -> mount.getMountPath().equals(path)).findFirst()
                .orElseThrow(() -> new AssertionError("nothing mounted at " + path));
    }

    private Volume volume(String name) {
        return pod.getVolumes().stream().filter(volume -> volume.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + name));
    }

    private int policyPort(NetworkPolicyPort port) {
        return containerPort(Objects.requireNonNull(port.getPort(), "NetworkPolicy port without a number"));
    }

    private static List<String> resources(String kustomization) {
        List<String> resources = new ArrayList<>();
        Manifests.tree(kustomization).path("resources").forEach(node -> resources.add(node.asText()));
        return resources;
    }
}
