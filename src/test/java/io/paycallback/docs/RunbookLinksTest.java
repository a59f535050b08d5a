package io.paycallback.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.paycallback.testsupport.Markdown;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each alert's {@code runbook_url} names a file of this repository ({@code .../-/blob/main/<path>#<anchor>}) and a
 * heading in it, so a page an alert points into can be any docs page, and a renamed heading fails here rather than
 * in the middle of an incident. Reads the rule file itself, so it needs no kubectl; ManifestsTest checks the same
 * of every rendered overlay.
 */
class RunbookLinksTest {

    static final Path RULES = DocsLinksTest.ROOT.resolve("k8s/base/prometheusrule.yaml");
    private static final String BLOB = "/-/blob/main/";

    @Test
    void everyAlertsRunbookIsAHeadingOfTheFileItsUrlNames() throws IOException {
        JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(RULES.toFile());
        List<String> alerts = new ArrayList<>();
        for (JsonNode group : rules.path("spec").path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                if (!rule.has("alert")) {
                    continue;
                }
                String name = rule.path("alert").asText();
                alerts.add(name);
                String url = rule.path("annotations").path("runbook_url").asText();
                assertThat(url).as("%s has a runbook_url", name).isNotEmpty();
                URI runbook = URI.create(url);
                assertThat(runbook.getScheme()).as(name).isEqualTo("https");
                assertThat(runbook.getPath()).as("%s: %s", name, url).contains(BLOB);
                Path file = DocsLinksTest.ROOT.resolve(runbook.getPath().substring(runbook.getPath().indexOf(BLOB) + BLOB.length()));
                assertThat(file).as("%s: %s names no file of this repository", name, url).isRegularFile();
                assertThat(runbook.getFragment()).as("%s: %s names no section", name, url).isNotEmpty();
                assertThat(Markdown.read(file).anchors()).as("%s: %s has no heading #%s", name, file, runbook.getFragment())
                        .contains(runbook.getFragment());
            }
        }
        assertThat(alerts).as("alert rules in %s", RULES).isNotEmpty();
    }
}
