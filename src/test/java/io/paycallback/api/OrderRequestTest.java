package io.paycallback.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OrderRequestTest {

    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private static OrderRequest parse(String json) throws Exception {
        JsonNode node = JSON.readTree(json);
        return OrderRequest.parse(node);
    }

    @Test
    void acceptsAnOrderWithAmountAsStringOrNumberExactly() throws Exception {
        OrderRequest request = parse("{\"merchantId\":\"m1\",\"outTradeNo\":\"ORD-1\",\"amount\":\"88.00\",\"currency\":\"CNY\"}");
        assertThat(request.amount()).isEqualByComparingTo("88.00");
        assertThat(parse("{\"outTradeNo\":\"ORD-1\",\"amount\":0.1,\"currency\":\"USD\"}").amount()).isEqualByComparingTo("0.10");
        assertThat(parse("{\"outTradeNo\":\"ORD-1\",\"amount\":\"500\",\"currency\":\"JPY\"}").merchantId()).isEqualTo("default");
    }

    @Test
    void refusesWhatCannotBeAnOrder() {
        String[] bad = {
                "[]",
                "{\"amount\":\"1\",\"currency\":\"CNY\"}",
                "{\"outTradeNo\":\"has space\",\"amount\":\"1\",\"currency\":\"CNY\"}",
                "{\"outTradeNo\":\"A\",\"amount\":\"0\",\"currency\":\"CNY\"}",
                "{\"outTradeNo\":\"A\",\"amount\":\"-5\",\"currency\":\"CNY\"}",
                "{\"outTradeNo\":\"A\",\"amount\":\"1.001\",\"currency\":\"CNY\"}",
                "{\"outTradeNo\":\"A\",\"amount\":\"1.5\",\"currency\":\"JPY\"}",
                "{\"outTradeNo\":\"A\",\"amount\":\"abc\",\"currency\":\"CNY\"}",
                "{\"outTradeNo\":\"A\",\"amount\":\"1\",\"currency\":\"ZZZ\"}",
                "{\"outTradeNo\":\"A\",\"amount\":\"1\",\"currency\":\"BHD\"}",
                "{\"outTradeNo\":\"A\",\"amount\":\"1\"}",
                "{\"outTradeNo\":\"A\",\"amount\":\"99999999999999999\",\"currency\":\"CNY\"}",
                "{\"outTradeNo\":7,\"amount\":\"1\",\"currency\":\"CNY\"}"};
        for (String json : bad) {
            assertThatThrownBy(() -> parse(json)).as(json).isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("null");
        }
    }

    @Test
    void anOrderPaidInACombineNamesItsCombine() throws Exception {
        assertThat(parse("{\"outTradeNo\":\"ORD-1\",\"amount\":\"1\",\"currency\":\"CNY\",\"combineOutTradeNo\":\"CMB-1\"}")
                .combine()).contains("CMB-1");
        assertThat(parse("{\"outTradeNo\":\"ORD-1\",\"amount\":\"1\",\"currency\":\"CNY\"}").combine()).isEmpty();
        assertThatThrownBy(() -> parse("{\"outTradeNo\":\"ORD-1\",\"amount\":\"1\",\"currency\":\"CNY\","
                + "\"combineOutTradeNo\":\"has space\"}"))
                .hasMessage("combineOutTradeNo must be 1-64 characters of [A-Za-z0-9_-|*@.]");
    }
}
