package io.paycallback.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paycallback.channel.Channel;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.provider.ProviderApi;
import io.paycallback.provider.ProviderClients;
import io.paycallback.trade.ChannelId;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one provider is to the registry, in one place: its keys, how properties declare them, how a row stores
 * them and an operator writes them, the shape of its sub-merchant ids, and how its channel and its API client are
 * built from the merchants and platforms served. The rest of the registry names no provider: a provider, or a mode of
 * one, is a module, not an edit of every switch.
 *
 * @param <K> the provider's keys
 */
interface ProviderModule<K extends ProviderKeys> {

    ChannelId id();

    Class<K> keysType();

    /**
     * Keys served on one callback path: a merchant's own, a platform's with all its sub-merchants, or a platform's
     * under one sub-merchant's id with that sub-merchant only.
     *
     * @param section where the keys are declared, for errors: {@code paycallback.merchants.<id>} in properties,
     *                {@code merchants.<id>} in the database
     */
    record Served<K>(String id, String section, K keys, io.paycallback.channel.Endpoint endpoint) {
    }

    /**
     * The keys a merchant's calls at the provider are made with: its own, or its platform's acting for it.
     *
     * @param as the sub-merchant the platform's keys act for
     */
    record Caller<K>(String merchantId, String section, K keys, Optional<Account.SubMerchant> as) {
    }

    // ---- properties: paycallback.merchants.<id>.<provider>, .<sub-merchant section>, paycallback.platforms.<id>.<provider>

    Optional<K> direct(PayCallbackConfig.Merchant merchant);

    Optional<Account.SubMerchant> subMerchant(PayCallbackConfig.Merchant merchant);

    Optional<K> platform(PayCallbackConfig.Platform platform);

    /** The properties section of a sub-merchant, e.g. {@code stripe-connect}. */
    String subMerchantSection();

    /** The property naming a sub-merchant's id within that section, e.g. {@code account}. */
    String subIdProperty();

    /** What is wrong with an id as this provider's sub-merchant id; empty when it has the provider's shape. */
    Optional<String> subIdProblem(String subId);

    // ---- a row of registry_accounts

    void write(K keys, ObjectNode settings, ObjectNode secrets);

    K read(JsonNode settings, JsonNode secrets);

    // ---- an operator's request

    /** The request fields this provider's keys take. */
    List<String> requestFields();

    /** The keys the request asks for, keeping the secrets of {@code kept} it leaves out. */
    K fromRequest(AccountRequest request, Optional<K> kept);

    // ---- what an operator sees

    void describe(K keys, Map<String, String> settings, List<OwnerView.KeyView> keyViews, Instant now);

    // ---- rotation: keys valid several at once while one replaces another

    /** The keys that rotate; empty for a provider whose keys are replaced whole. */
    List<RotatingKey> rotating(K keys);

    K withRotating(K keys, List<RotatingKey> rotating);

    // ---- serving

    /**
     * @param context what the provider's client is built with, for a channel whose keys are downloaded from the provider
     * @throws IllegalArgumentException naming the key at fault
     */
    Channel channel(List<Served<K>> served, Instant now, Clock clock, ProviderClients.Context context, ParsedKeys parsed);

    /** @throws IllegalArgumentException naming the key at fault */
    ProviderApi client(ProviderClients.Context context, Channel channel, List<Caller<K>> callers, ParsedKeys parsed);

    default K cast(ProviderKeys keys) {
        return keysType().cast(keys);
    }
}
