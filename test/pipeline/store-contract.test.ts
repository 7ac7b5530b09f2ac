import { memoryStores } from '../../shared/pipeline/memory-stores.ts';
import { storeContract } from '../support/store-contracts.ts';

storeContract('the memory stores', async (now) => memoryStores(now));
