package io.paycallback.statement;

import io.paycallback.provider.TradeBill;
import io.paycallback.statement.bill.AlipayTradeBill;
import io.paycallback.statement.bill.BillException;
import io.paycallback.statement.bill.StripeBalanceTransactions;
import io.paycallback.statement.bill.WxPayTradeBill;
import io.paycallback.trade.ChannelId;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Streams a provider's bill through its reader into the staging sink, and answers the digest the run keeps of it
 * (never the file): WeChat Pay's stated SHA-1 of the decompressed file, which its reader verified; a SHA-256 of the
 * Alipay ZIP or of Stripe's pages as received.
 */
final class BillReading {

    private BillReading() {
    }

    static String read(ChannelId channel, TradeBill bill, StagingSink sink) throws BillException, IOException {
        if (bill instanceof TradeBill.Empty empty) {
            return "none:" + empty.code();
        }
        if (bill instanceof TradeBill.File file) {
            try (InputStream body = file.body()) {
                if (channel == ChannelId.WXPAY) {
                    WxPayTradeBill.readGzip(body, file.sha1Hex(), sink);
                    sink.flush();
                    return "sha1:" + file.sha1Hex().toLowerCase(Locale.ROOT);
                }
                DigestInputStream digested = new DigestInputStream(body, sha256());
                AlipayTradeBill.read(digested, sink);
                // The reader stops at what it needs; the digest covers the whole file as received.
                digested.transferTo(OutputStream.nullOutputStream());
                sink.flush();
                return "sha256:" + HexFormat.of().formatHex(digested.getMessageDigest().digest());
            }
        }
        if (bill instanceof TradeBill.Pages pages) {
            MessageDigest digest = sha256();
            String startingAfter = null;
            while (true) {
                StripeBalanceTransactions.Page page;
                try (InputStream body = new DigestInputStream(pages.source().page(startingAfter), digest)) {
                    page = StripeBalanceTransactions.readPage(body, sink);
                    body.transferTo(OutputStream.nullOutputStream());
                }
                if (!page.hasMore()) {
                    break;
                }
                if (page.lastId() == null) {
                    throw new BillException.Malformed("a page says it has more, but lists nothing to continue after");
                }
                startingAfter = page.lastId();
            }
            sink.flush();
            return "sha256:" + HexFormat.of().formatHex(digest.digest());
        }
        throw new IllegalArgumentException("no file to read in " + bill);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
