/**
 * The catalogue as the API sees it: every asset in memory, reloaded from PostgreSQL at most
 * once a minute (the reference lifetime of catalogue data) and at once when told it changed.
 */
import { listAssets, type AssetRecord } from '../../db/queries/assets';
import type { Database } from '../../db/pool';
import { ApiError } from '../../domain/errors';
import { INVALID_SYMBOL_MESSAGE } from '../../domain/token-symbol';

const RELOAD_MS = 60_000;

export class AssetDirectory {
  private assets: Map<string, AssetRecord> | undefined;
  private loadedAt = 0;
  private loading: Promise<Map<string, AssetRecord>> | undefined;

  constructor(private readonly db: Database) {}

  private async load(): Promise<Map<string, AssetRecord>> {
    if (this.assets && Date.now() - this.loadedAt < RELOAD_MS) return this.assets;
    this.loading ??= listAssets(this.db)
      .then((rows) => {
        this.assets = new Map(rows.map((asset) => [asset.symbol, asset]));
        this.loadedAt = Date.now();
        return this.assets;
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  /** Every asset, ordered by symbol. */
  async all(): Promise<AssetRecord[]> {
    return [...(await this.load()).values()];
  }

  async find(symbol: string): Promise<AssetRecord | undefined> {
    return (await this.load()).get(symbol);
  }

  /**
   * The asset a path or query symbol names: 400 INVALID_SYMBOL when it cannot be a token symbol,
   * 404 ASSET_NOT_FOUND when no such token exists.
   */
  async resolve(symbol: string | undefined): Promise<AssetRecord> {
    if (symbol === undefined || symbol.length < 3 || !symbol.endsWith('on')) {
      throw new ApiError('INVALID_SYMBOL', INVALID_SYMBOL_MESSAGE);
    }
    const asset = await this.find(symbol);
    if (!asset) throw new ApiError('ASSET_NOT_FOUND', `Asset ${symbol} not found`);
    return asset;
  }

  invalidate(): void {
    this.loadedAt = 0;
  }
}
