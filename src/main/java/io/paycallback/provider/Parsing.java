package io.paycallback.provider;

import io.paycallback.channel.Rejection;
import io.paycallback.channel.ChannelVerdict;
import io.paycallback.trade.InvalidMoney;

/** Runs a channel parser over a provider's answer: whatever the parser refuses is an unreadable answer. */
final class Parsing {

    private Parsing() {
    }

    @FunctionalInterface
    interface Parser<T> {
        T parse() throws Rejection, InvalidMoney;
    }

    static <T> T read(String provider, Parser<T> parser) {
        try {
            return parser.parse();
        } catch (Rejection rejection) {
            throw new ProviderException(provider, new ProviderFailure.BadAnswer(reason(rejection)));
        } catch (InvalidMoney invalid) {
            throw new ProviderException(provider, new ProviderFailure.BadAnswer(invalid.getMessage()));
        }
    }

    static String reason(Rejection rejection) {
        ChannelVerdict verdict = rejection.verdict();
        if (verdict instanceof ChannelVerdict.BadSignature bad) {
            return bad.reason();
        }
        return verdict instanceof ChannelVerdict.Malformed malformed ? malformed.reason() : verdict.toString();
    }
}
