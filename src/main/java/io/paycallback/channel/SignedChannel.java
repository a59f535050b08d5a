package io.paycallback.channel;

import io.paycallback.trade.ChannelId;
import java.util.Map;

/**
 * The part every provider's channel shares: keys per merchant, verification on the raw body before anything is
 * parsed, parsing that never throws (a refusal is a {@link ChannelVerdict}) and only accepts what the ledger can store
 * ({@link Storable}), and the provider's answer format. A channel
 * holds only what is its own: how a body is verified and how a verified body reads.
 *
 * @param <M> a merchant's keys for this provider
 * @param <B> what verification leaves for parsing (the raw body, or the decoded form)
 */
public abstract class SignedChannel<M, B> implements Channel {

    private final ChannelId id;
    private final Map<String, M> merchants;
    private final AnswerFormat answers;

    protected SignedChannel(ChannelId id, Map<String, M> merchants, AnswerFormat answers) {
        this.id = id;
        this.merchants = Map.copyOf(merchants);
        this.answers = answers;
    }

    @Override
    public final ChannelId id() {
        return id;
    }

    @Override
    public final boolean serves(String merchantId) {
        return merchants.containsKey(merchantId);
    }

    @Override
    public final ChannelVerdict read(CallbackRequest request) {
        B verified;
        try {
            verified = verify(request, merchant(request.merchantId()));
        } catch (Rejection rejection) {
            return rejection.verdict();
        } catch (RuntimeException e) {
            return new ChannelVerdict.BadSignature("signature could not be verified");
        }
        return parse(request, merchants.get(request.merchantId()), verified);
    }

    @Override
    public final ChannelVerdict parseStored(CallbackRequest request) {
        B stored;
        try {
            stored = stored(request);
        } catch (Rejection rejection) {
            return rejection.verdict();
        } catch (RuntimeException e) {
            return new ChannelVerdict.Malformed("notice could not be read");
        }
        return parse(request, merchants.get(request.merchantId()), stored);
    }

    @Override
    public final FormattedAnswer answer(AnswerKind outcome) {
        return answers.answer(outcome);
    }

    /** The merchant's keys; a merchant without them can prove nothing. */
    protected final M merchant(String merchantId) throws Rejection {
        M merchant = merchants.get(merchantId);
        if (merchant == null) {
            throw Rejection.badSignature("no " + id.path() + " keys for this merchant");
        }
        return merchant;
    }

    private ChannelVerdict parse(CallbackRequest request, M merchant, B body) {
        try {
            return new ChannelVerdict.Accepted(Storable.checked(notice(request, merchant, body)));
        } catch (Rejection rejection) {
            return rejection.verdict();
        } catch (RuntimeException e) {
            return new ChannelVerdict.Malformed("notice could not be read");
        }
    }

    /** Proves the body is the provider's, on the raw bytes; throws a bad-signature rejection otherwise. */
    protected abstract B verify(CallbackRequest request, M merchant) throws Rejection;

    /** A body verified when it arrived and stored since (its signature headers are not kept). */
    protected abstract B stored(CallbackRequest request) throws Rejection;

    /** @param merchant null for a stored body whose merchant has no keys any more */
    protected abstract Notice notice(CallbackRequest request, M merchant, B body) throws Rejection;
}
