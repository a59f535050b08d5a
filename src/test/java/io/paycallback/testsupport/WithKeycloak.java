package io.paycallback.testsupport;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.List;

/** The test profile with Keycloak as the operators' identity provider ({@link KeycloakResource}). */
public class WithKeycloak implements QuarkusTestProfile {

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(KeycloakResource.class));
    }
}
