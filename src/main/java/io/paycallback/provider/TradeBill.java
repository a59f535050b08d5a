package io.paycallback.provider;

import java.io.InputStream;

/** What a provider answers when asked for a day's trade bill. */
public sealed interface TradeBill {

    /** The provider is still making the bill (WeChat Pay {@code STATEMENT_CREATING}): ask again later. */
    record NotReady(String code) implements TradeBill {
    }

    /** The provider booked nothing that day ({@code NO_STATEMENT_EXIST}, {@code BILL_NOT_EXIST}). */
    record Empty(String code) implements TradeBill {
    }

    /**
     * The bill file as it streams in; the caller reads and closes it, and never holds it whole.
     *
     * @param sha1Hex the digest the provider stated for the decompressed file (WeChat Pay), or null when it states none
     */
    record File(InputStream body, String sha1Hex) implements TradeBill {
    }

    /** A listing fetched page by page (Stripe's balance transactions). */
    record Pages(PageSource source) implements TradeBill {
    }

    /** Fetches one page of a listing. */
    @FunctionalInterface
    interface PageSource {
        /**
         * @param startingAfter the last id of the previous page, or null for the first
         * @return the page's body as it streams in; the caller closes it
         */
        InputStream page(String startingAfter);
    }
}
