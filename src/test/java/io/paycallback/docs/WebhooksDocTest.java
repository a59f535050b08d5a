package io.paycallback.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/webhooks.md shows a downstream team how to verify a delivery with the JDK only, and how to read a Kafka
 * destination's topic; the tests' receiver (delivery/WebhookVerifier) and consumer (delivery/PayCallbackEvents) are that
 * code, public where the tests need it, so the page's examples are the tested ones.
 */
class WebhooksDocTest {

    @Test
    void thePagesVerifierIsTheOneTheTestsRun() throws IOException {
        assertTheExampleIsTheTestedOne(0, "WebhookVerifier");
    }

    @Test
    void thePagesKafkaConsumerIsTheOneTheTestsRun() throws IOException {
        assertTheExampleIsTheTestedOne(1, "PayCallbackEvents");
    }

    /** The page's {@code index}-th Java block is the tests' class of that name, {@code public} aside. */
    private static void assertTheExampleIsTheTestedOne(int index, String type) throws IOException {
        String page = Files.readString(DocsLinksTest.ROOT.resolve("docs/webhooks.md"));
        int start = -1;
        for (int i = 0; i <= index; i++) {
            start = page.indexOf("```java\n", start + 1);
        }
        start += "```java\n".length();
        String example = page.substring(start, page.indexOf("```\n", start));
        String tested = Files.readString(DocsLinksTest.ROOT.resolve("src/test/java/io/paycallback/delivery/" + type
                + ".java"));

        assertThat(body(tested, type).replace("public ", "")).isEqualTo(body(example, type));
        assertThat(imports(tested)).isEqualTo(imports(example));
    }

    private static String body(String source, String type) {
        return source.substring(source.indexOf("final class " + type));
    }

    private static String imports(String source) {
        return source.lines().filter(line -> line.startsWith("import ")).reduce("", (a, b) -> a + b + "\n");
    }
}
