package io.paycallback.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paycallback.testsupport.ManagementPort;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** deploy/grafana/pay-callback.json asks only for metrics the running service exports. */
@QuarkusTest
class GrafanaDashboardTest {

    private static final Path DASHBOARD = Path.of("deploy/grafana/pay-callback.json");

    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");
    private static final Pattern MATCHERS = Pattern.compile("\\{[^}]*}");
    private static final Pattern RANGE = Pattern.compile("\\[[^]]*]");
    private static final Pattern GROUPING = Pattern.compile(
            "\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w:.$])[a-zA-Z_:][\\w:]*");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "offset", "bool", "by", "without", "on",
            "ignoring", "group_left", "group_right", "inf", "nan");
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*([a-zA-Z_:][\\w:]*)");

    /** The metric names a PromQL expression selects: identifiers that are not functions, keywords or label names. */
    static Set<String> metricNames(String expr) {
        String bare = GROUPING.matcher(RANGE.matcher(MATCHERS.matcher(STRING.matcher(expr).replaceAll("\"\""))
                .replaceAll(" ")).replaceAll(" ")).replaceAll(" ");
        Set<String> names = new LinkedHashSet<>();
        Matcher identifier = IDENTIFIER.matcher(bare);
        while (identifier.find()) {
            String name = identifier.group();
            boolean function = bare.substring(identifier.end()).stripLeading().startsWith("(");
            if (!function && !KEYWORDS.contains(name.toLowerCase())) {
                names.add(name);
            }
        }
        return names;
    }

    /** A histogram's _bucket, _count and _sum series are the histogram. */
    static String base(String metric) {
        return metric.replaceFirst("_(?:bucket|count|sum)$", "");
    }

    @Test
    void metricNamesAreTheSelectorsOnly() {
        assertThat(metricNames("histogram_quantile(0.99, sum by (le, channel) (rate(a_seconds_bucket{x=\"y or z\"}[5m])))"
                + " > 2 or sum without (pod) (b_total offset 5m) / on (table) group_left c:ratio"))
                .containsExactly("a_seconds_bucket", "b_total", "c:ratio");
        assertThat(metricNames("max(up{job=~\"$job\"}) * 1e3")).containsExactly("up");
    }

    @Test
    void everyQueryOfTheDashboardNamesAMetricTheServiceExports() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        List<String> exprs = new ArrayList<>();
        collectExprs(dashboard.path("panels"), exprs);
        assertThat(exprs).hasSizeGreaterThanOrEqualTo(10);

        String metrics = given().port(ManagementPort.get()).get("/q/metrics").then().statusCode(200).extract().asString();
        Set<String> exported = metrics.lines().filter(line -> !line.isBlank() && !line.startsWith("#"))
                .map(line -> line.split("[{ ]", 2)[0]).map(GrafanaDashboardTest::base).collect(Collectors.toSet());

        Set<String> used = new LinkedHashSet<>();
        for (String expr : exprs) {
            Set<String> names = metricNames(expr);
            assertThat(names).as(expr).isNotEmpty();
            for (String name : names) {
                assertThat(exported).as("%s in %s", name, expr).contains(base(name));
            }
            used.addAll(names.stream().map(GrafanaDashboardTest::base).toList());
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            Matcher labelValues = LABEL_VALUES.matcher(variable.path("definition").asText());
            if (labelValues.find()) {
                assertThat(exported).as("variable " + variable.path("name").asText()).contains(labelValues.group(1));
            }
        }

        assertThat(used).contains("paycallback_callbacks_total", "paycallback_callback_seconds",
                "paycallback_backlog_stale_pending", "paycallback_dead_letters", "paycallback_quarantine_rows",
                "paycallback_outbox_deliveries_total", "paycallback_outbox_delivery_seconds");
        assertThat(exprs).anyMatch(expr -> expr.contains("outcome=\"rejected_busy\""));
    }

    private static void collectExprs(JsonNode panels, List<String> exprs) {
        for (JsonNode panel : panels) {
            for (JsonNode target : panel.path("targets")) {
                exprs.add(target.path("expr").asText());
            }
            collectExprs(panel.path("panels"), exprs);
        }
    }
}
