package io.paycallback.bench;

import io.paycallback.registry.Account;
import io.paycallback.registry.AccountRequest;
import io.paycallback.trade.ChannelId;
import io.paycallback.registry.Envelope;
import io.paycallback.registry.KeyEncryptionKeys;
import io.paycallback.registry.ProviderKeys;
import io.paycallback.registry.StoredAccount;
import io.paycallback.trade.ChannelId;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Fills the merchant registry's tables for deploy/bench/registry.sh with the rows the admin API would write, inserted
 * directly in batches: platforms with Stripe Connect and WeChat Pay partner keys, direct merchants with a Stripe and a
 * WeChat Pay account each, and sub-merchants spread over the platforms (a Stripe connected account each, every other
 * one also a WeChat Pay partner sub-merchant). The rows are made by the service's own {@link StoredAccount} and
 * {@link Envelope}, so what the service reads back is exactly what it writes. One RSA key pair serves every WeChat Pay
 * account, in a text of its own per account. A {@code registry_changes} row per owner, as the API records every
 * change of an owner, moves the version; the tables are expected empty (a fresh database the service migrated).
 *
 * <pre>
 *   java -cp target/test-classes:target/classes:$(cat target/cp.txt) io.paycallback.bench.RegistrySeed \
 *       JDBC_URL USER PASSWORD KEK_ID:BASE64 MERCHANTS PLATFORMS SUB_MERCHANTS
 * </pre>
 * Prints the registry's version after the seed.
 */
public final class RegistrySeed {

    private static final int BATCH = 1000;
    private static final String ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    private static final String INSERT_OWNER = """
            INSERT INTO registry_owners (id, kind, enabled, created_at, updated_at) VALUES (?, ?, 1, NOW(3), NOW(3))""";
    private static final String INSERT_ACCOUNT = """
            INSERT INTO registry_accounts (owner_id, provider, mode, platform_id, sub_id, settings, kek_id, wrapped_key,
                                           secrets, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NOW(3))""";
    private static final String INSERT_CHANGE = """
            INSERT INTO registry_changes (actor, action, owner_id, provider, before_doc, after_doc, created_at)
            VALUES ('bench-seed', 'seed', ?, NULL, NULL, NULL, NOW(3))""";
    private static final String VERSION = "SELECT COALESCE(MAX(id), 0) FROM registry_changes";

    private final SecureRandom random = new SecureRandom();
    private final KeyEncryptionKeys.Key kek;
    private final byte[] publicKey;
    private final byte[] privateKey;
    private int keysWritten;

    private RegistrySeed(KeyEncryptionKeys.Key kek) throws Exception {
        this.kek = kek;
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        KeyPair pair = generator.generateKeyPair();
        this.publicKey = pair.getPublic().getEncoded();
        this.privateKey = pair.getPrivate().getEncoded();
    }

    /**
     * One key pair for every account (generating twenty thousand would take the seed minutes), but each account's text
     * of it is its own: base64 wrapped at a width of its own, as operators paste keys. The service then parses and holds
     * one key object per account, as it would with keys of their own, and nothing is shared that real keys would not
     * share.
     */
    private String pasted(byte[] der, String begin, String end) {
        int n = keysWritten++;
        int width = 40 + n % 37;
        int extraBreak = 1 + (n / 37) % 300;
        StringBuilder wrapped = new StringBuilder(Base64.getMimeEncoder(width, new byte[]{'\n'}).encodeToString(der));
        wrapped.insert(Math.min(extraBreak, wrapped.length()), '\n');
        return begin == null ? wrapped.toString() : begin + "\n" + wrapped + "\n" + end + "\n";
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: JDBC_URL USER PASSWORD KEK_ID:BASE64 MERCHANTS PLATFORMS SUB_MERCHANTS");
            System.exit(2);
        }
        KeyEncryptionKeys.Key kek = KeyEncryptionKeys.parse(List.of(args[3]), "the key-encryption key argument")
                .active().orElseThrow(() -> new IllegalArgumentException("no key-encryption key given"));
        int merchants = Integer.parseInt(args[4]);
        int platforms = Integer.parseInt(args[5]);
        int subMerchants = Integer.parseInt(args[6]);
        if (subMerchants > 0 && platforms == 0) {
            throw new IllegalArgumentException("sub-merchants need at least one platform");
        }
        try (Connection db = DriverManager.getConnection(args[0], args[1], args[2])) {
            db.setAutoCommit(false);
            System.out.println(new RegistrySeed(kek).seed(db, merchants, platforms, subMerchants));
        }
    }

    private final List<String> seeded = new ArrayList<>();

    private long seed(Connection db, int merchants, int platforms, int subMerchants) throws SQLException {
        try (Rows rows = new Rows(db)) {
            for (int i = 1; i <= platforms; i++) {
                String id = platformId(i);
                rows.owner(id, "platform");
                rows.account(StoredAccount.ofPlatform(id, stripe()));
                rows.account(StoredAccount.ofPlatform(id, wxpay(String.format("17%08d", i))));
            }
            for (int i = 1; i <= merchants; i++) {
                String id = String.format("m%05d", i);
                rows.owner(id, "merchant");
                rows.account(StoredAccount.of(id, new Account.Direct(stripe())));
                rows.account(StoredAccount.of(id, new Account.Direct(wxpay(String.format("16%08d", i)))));
            }
            for (int i = 1; i <= subMerchants; i++) {
                String id = String.format("s%05d", i);
                String platform = platformId((i - 1) % platforms + 1);
                rows.owner(id, "merchant");
                rows.account(StoredAccount.of(id, new Account.SubMerchant(ChannelId.STRIPE, platform,
                        String.format("acct_bench%08d", i), Optional.empty())));
                if (i % 2 == 0) {
                    rows.account(StoredAccount.of(id, new Account.SubMerchant(ChannelId.WXPAY, platform,
                            String.format("19%08d", i), Optional.empty())));
                }
            }
            rows.flush();
        }
        try (PreparedStatement change = db.prepareStatement(INSERT_CHANGE)) {
            for (String owner : seeded) {
                change.setString(1, owner);
                change.addBatch();
            }
            change.executeBatch();
        }
        db.commit();
        try (PreparedStatement version = db.prepareStatement(VERSION); ResultSet result = version.executeQuery()) {
            result.next();
            return result.getLong(1);
        }
    }

    private static String platformId(int i) {
        return String.format("p%03d", i);
    }

    /** Keys as an operator writes them through the API. */
    private ProviderKeys stripe() {
        return new AccountRequest(null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                null, List.of("whsec_" + text(32)), "sk_test_" + text(24)).platformKeys(ChannelId.STRIPE);
    }

    private ProviderKeys wxpay(String mchid) {
        return new AccountRequest(null, null, null, null, mchid, text(32),
                Map.of("PUB_KEY_ID_01" + mchid + "0000000001", pasted(publicKey, null, null)), hex(40),
                pasted(privateKey, "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----"), null, null, null,
                null, null, null, null, null, null).platformKeys(ChannelId.WXPAY);
    }

    private String text(int length) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(ALPHANUMERIC.charAt(random.nextInt(ALPHANUMERIC.length())));
        }
        return text.toString();
    }

    private String hex(int length) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append("0123456789ABCDEF".charAt(random.nextInt(16)));
        }
        return text.toString();
    }

    /** Owners and accounts batched, every batch sent when full; all in the caller's one transaction. */
    private final class Rows implements AutoCloseable {
        private final PreparedStatement owners;
        private final PreparedStatement accounts;
        private int pendingOwners;
        private int pendingAccounts;

        Rows(Connection db) throws SQLException {
            this.owners = db.prepareStatement(INSERT_OWNER);
            this.accounts = db.prepareStatement(INSERT_ACCOUNT);
        }

        void owner(String id, String kind) throws SQLException {
            seeded.add(id);
            owners.setString(1, id);
            owners.setString(2, kind);
            owners.addBatch();
            if (++pendingOwners == BATCH) {
                owners.executeBatch();
                pendingOwners = 0;
            }
        }

        void account(StoredAccount account) throws SQLException {
            Envelope.Sealed sealed = account.secrets() == null ? null
                    : Envelope.seal(account.secrets(), StoredAccount.identity(account.ownerId(), account.provider()), kek);
            accounts.setString(1, account.ownerId());
            accounts.setString(2, account.provider().path());
            accounts.setString(3, account.mode().label());
            accounts.setString(4, account.platformId());
            accounts.setString(5, account.subId());
            accounts.setString(6, account.settings());
            if (sealed == null) {
                accounts.setNull(7, Types.VARCHAR);
                accounts.setNull(8, Types.VARBINARY);
                accounts.setNull(9, Types.BLOB);
            } else {
                accounts.setString(7, sealed.kekId());
                accounts.setBytes(8, sealed.wrappedKey());
                accounts.setBytes(9, sealed.ciphertext());
            }
            accounts.addBatch();
            if (++pendingAccounts == BATCH) {
                accounts.executeBatch();
                pendingAccounts = 0;
            }
        }

        void flush() throws SQLException {
            owners.executeBatch();
            accounts.executeBatch();
        }

        @Override
        public void close() throws SQLException {
            owners.close();
            accounts.close();
        }
    }
}
