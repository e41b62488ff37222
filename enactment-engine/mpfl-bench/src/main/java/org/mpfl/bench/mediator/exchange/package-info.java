/**
 * The iterative workflow of the direct-messaging-against-mediator comparison, in both forms: the MPFL
 * document {@code exchange.mpfl.xml} (ranks exchange their blocks with an {@code allgather} every
 * iteration) and {@link org.mpfl.bench.mediator.exchange.AllgatherExchange} (the same rounds enacted by
 * the {@link org.mpfl.bench.mediator.Mediator}); both run the same activities on the same data.
 */
package org.mpfl.bench.mediator.exchange;
