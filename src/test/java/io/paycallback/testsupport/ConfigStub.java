package io.paycallback.testsupport;

import java.lang.reflect.Proxy;
import java.util.Map;

/** A configuration interface for a plain unit test, without SmallRye: it answers only the methods named. */
public final class ConfigStub {

    private ConfigStub() {
    }

    public static <T> T of(Class<T> type, Map<String, Object> answers) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (!answers.containsKey(method.getName())) {
                throw new UnsupportedOperationException(method.getName());
            }
            return answers.get(method.getName());
        }));
    }
}
