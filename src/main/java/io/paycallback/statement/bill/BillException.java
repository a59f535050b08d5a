package io.paycallback.statement.bill;

/**
 * Why a bill could not be read. Any of them fails the run: nothing of a bill that is not whole and authentic is
 * compared.
 */
public abstract sealed class BillException extends Exception
        permits BillException.Malformed, BillException.Incomplete, BillException.Tampered {

    private BillException(String message) {
        super(message);
    }

    /** A line or the file's layout is not what the provider's format says (a missing column, an unreadable amount). */
    public static final class Malformed extends BillException {
        public Malformed(String message) {
            super(message);
        }
    }

    /** The file's own totals disagree with its lines, or a part of the file is missing: a cut download. */
    public static final class Incomplete extends BillException {
        public Incomplete(String message) {
            super(message);
        }
    }

    /** The file's digest is not the one the provider stated. */
    public static final class Tampered extends BillException {
        public Tampered(String message) {
            super(message);
        }
    }
}
