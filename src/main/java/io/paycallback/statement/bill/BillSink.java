package io.paycallback.statement.bill;

/**
 * Takes a bill's lines as they are read, so a bill of a million lines is never held whole. A reader calls it before
 * it has checked the file's totals or digest: what the sink keeps is provisional until the reader returns.
 */
@FunctionalInterface
public interface BillSink {

    void accept(BillLine line) throws BillException;
}
