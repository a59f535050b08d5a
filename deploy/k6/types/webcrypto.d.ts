// k6 >= 1.0.0 exposes WebCrypto as the global `crypto` (grafana/k6#4278); @types/k6 does not declare it, and the DOM
// lib would also declare browser globals that k6 lacks. Only what these scripts use, as the Web Crypto API defines it.
// `crypto` is declared possibly undefined because an older k6 has none: lib/sign.js checks before using it.
export {};

declare global {
  type KeyUsage = 'encrypt' | 'decrypt' | 'sign' | 'verify';

  interface CryptoKey {
    readonly type: 'secret' | 'private' | 'public';
    readonly extractable: boolean;
    readonly usages: KeyUsage[];
  }

  interface RsaHashedImportParams {
    name: 'RSASSA-PKCS1-v1_5';
    hash: 'SHA-256';
  }

  interface AesKeyAlgorithm {
    name: 'AES-GCM';
  }

  interface AesGcmParams {
    name: 'AES-GCM';
    iv: ArrayBuffer;
    additionalData?: ArrayBuffer;
    tagLength?: 128;
  }

  interface SubtleCrypto {
    importKey(format: 'raw' | 'pkcs8', keyData: ArrayBuffer, algorithm: RsaHashedImportParams | AesKeyAlgorithm,
      extractable: boolean, keyUsages: KeyUsage[]): Promise<CryptoKey>;
    sign(algorithm: 'RSASSA-PKCS1-v1_5', key: CryptoKey, data: ArrayBuffer): Promise<ArrayBuffer>;
    encrypt(algorithm: AesGcmParams, key: CryptoKey, data: ArrayBuffer): Promise<ArrayBuffer>;
  }

  interface Crypto {
    readonly subtle: SubtleCrypto;
  }

  var crypto: Crypto | undefined;
}
