package io.paycallback.bench;

import io.paycallback.testsupport.ProviderKeysResource;

import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * The tests' fake providers (testsupport's FakeProviders) in a process of their own, for deploy/bench/run.sh's
 * statement phase: the packaged service fetches its bills from here, so its heap holds only the service. The fakes
 * know the providers' halves of the keys {@code RequestGenerator keys DIR} wrote; the merchant's API keys are made
 * here. Bills are set up over the fakes' {@code /control/...} endpoints, e.g. a WeChat Pay bill of N lines written while
 * it is served: {@code POST /control/generated-bill?date=…&prefix=…&lines=N}.
 * <pre>
 *   BillServer DIR OUT     OUT: what the service needs ("key=value" lines: merchant API keys, the providers' URLs);
 *                          stdout, first line: the fakes' base URL. Runs until killed.
 * </pre>
 */
public final class BillServer {

    private BillServer() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: BillServer KEYS_DIR OUT");
            System.exit(2);
        }
        Map<String, String> config = new TreeMap<>(new ProviderKeysResource().startFakes(RequestGenerator.load(Path.of(args[0])), 0));
        String base = config.remove("test.fake-providers.base-url");
        // One "key=value" line per entry, unescaped, so the shell can turn each into a -D option as is.
        try (Writer out = Files.newBufferedWriter(Path.of(args[1]))) {
            for (Map.Entry<String, String> entry : config.entrySet()) {
                out.write(entry.getKey() + "=" + entry.getValue() + "\n");
            }
        }
        System.out.println(base);
        System.out.flush();
    }
}
