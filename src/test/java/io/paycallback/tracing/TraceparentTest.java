package io.paycallback.tracing;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class TraceparentTest {

    private static final String SAMPLED = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    @Test
    void aVersion00TraceparentParsesIntoItsParts() {
        Traceparent parsed = Traceparent.parse(SAMPLED).orElseThrow();
        assertThat(parsed.traceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
        assertThat(parsed.spanId()).isEqualTo("b7ad6b7169203331");
        assertThat(parsed.spanContext().isSampled()).isTrue();
        assertThat(parsed.spanContext().isRemote()).isTrue();
        assertThat(Traceparent.parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00").orElseThrow()
                .spanContext().isSampled()).isFalse();
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {
            "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",   // a version this build does not write
            "00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01",   // upper case
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-",  // too long
            "00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01",    // a trace id one digit short
            "00-0af7651916cd43dd8448eb211c80319c_b7ad6b7169203331-01",   // a separator out of place
            "00-0af7651916cd43dd8448eb211c80319g-b7ad6b7169203331-01",   // not hex
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",   // the invalid trace id
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01"})  // the invalid span id
    void anythingElseIsIgnored(String value) {
        assertThat(Traceparent.parse(value)).isEmpty();
    }

    @Test
    void aSpanContextIsWrittenAsItsTraceparentAndAnInvalidOneAsNothing() {
        SpanContext context = SpanContext.create("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331",
                TraceFlags.getDefault(), TraceState.getDefault());
        assertThat(Traceparent.of(context)).map(Traceparent::value)
                .contains("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00");
        assertThat(Traceparent.of(SpanContext.getInvalid())).isEmpty();
        assertThat(Traceparent.valueOrNull(Traceparent.of(SpanContext.getInvalid()))).isNull();
    }
}
