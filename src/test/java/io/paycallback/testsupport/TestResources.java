package io.paycallback.testsupport;

import io.quarkus.test.common.QuarkusTestResource;

/**
 * Quarkus applies these to every {@code @QuarkusTest}, so all tests share one application: generated merchant keys
 * and a downstream event sink on loopback.
 */
@QuarkusTestResource(ProviderKeysResource.class)
@QuarkusTestResource(EventSinkResource.class)
public final class TestResources {

    private TestResources() {
    }
}
