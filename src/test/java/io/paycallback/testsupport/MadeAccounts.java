package io.paycallback.testsupport;

import java.util.ArrayList;
import java.util.List;

/**
 * Provider accounts a test made through the registry API, removed again after it: a merchant with API keys left in the
 * registry is enrolled in the statement runs (and the queries) of every suite that shares the database after it.
 */
public final class MadeAccounts {

    private record Account(String merchantId, String provider) {
    }

    private final List<Account> made = new ArrayList<>();

    /** @return the merchant's id */
    public String made(String merchantId, String provider) {
        made.add(new Account(merchantId, provider));
        return merchantId;
    }

    public void removeAll() {
        made.forEach(account -> Api.as(Api.ALICE_TOKEN)
                .delete("/admin/registry/merchants/" + account.merchantId() + "/accounts/" + account.provider())
                .then().statusCode(200));
        made.clear();
    }
}
