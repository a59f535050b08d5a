package io.paycallback.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/webhooks.md shows a downstream team how to verify a delivery with the JDK only; the tests' receiver
 * (delivery/WebhookVerifier) is that code, public where the tests need it, so the page's example is the tested one.
 */
class WebhooksDocTest {

    @Test
    void thePagesVerifierIsTheOneTheTestsRun() throws IOException {
        String page = Files.readString(DocsLinksTest.ROOT.resolve("docs/webhooks.md"));
        int start = page.indexOf("```java\n") + "```java\n".length();
        String example = page.substring(start, page.indexOf("```\n", start));
        String tested = Files.readString(DocsLinksTest.ROOT.resolve(
                "src/test/java/io/paycallback/delivery/WebhookVerifier.java"));

        assertThat(body(tested).replace("public ", "")).isEqualTo(body(example));
        assertThat(imports(tested)).isEqualTo(imports(example));
    }

    private static String body(String source) {
        return source.substring(source.indexOf("final class WebhookVerifier"));
    }

    private static String imports(String source) {
        return source.lines().filter(line -> line.startsWith("import ")).reduce("", (a, b) -> a + b + "\n");
    }
}
