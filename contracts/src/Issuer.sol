// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {IIdentityRegistry} from "./interfaces/IIdentityRegistry.sol";
import {IStockToken} from "./interfaces/IStockToken.sol";

/// @title Issuer
/// @notice The in-kind partner flow. Minting: once the brokerage partner has journalled the shares,
/// the issuer's submitter key calls `processMint` with the partner's mint request and the partner
/// signer's EIP-712 signature over it (domain name "TokenizedStockIssuer", version "1", this chain,
/// this contract), so the submitter key alone cannot mint. Redeeming: a registered wallet hands
/// tokens back with `redeem` (prior `approve`); they are burnt and `IssuerRedeem` tells the issuer
/// to deliver the shares.
///
/// Tokens are found by symbol: DEFAULT_ADMIN_ROLE maps each token symbol (the `tokenSymbol` of a
/// mint request, e.g. "AAPLon") to its token with `setToken`, which checks the token's own symbol.
/// `usdNotional` in `IssuerRedeem` is `amount × referencePrice / 1e18` in USD with 18 decimals,
/// rounded down, from a reference price the admin may set per token (zero when unset): it is
/// informational, the off-chain side prices the redemption itself.
///
/// Roles: SUBMITTER_ROLE calls `processMint`; BROKER_SIGNER_ROLE marks the partner's signing keys;
/// PAUSER_ROLE pauses mints and redemptions. Needs MINTER_ROLE and BURNER_ROLE on every token.
contract Issuer is EIP712, AccessControl, Pausable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @notice The partner's mint request; `qty` is the share quantity with 9 decimals.
    struct MintRequest {
        string tokenizationRequestId;
        string underlyingSymbol;
        string tokenSymbol;
        uint256 qty;
        address wallet;
        string network;
        string clientAccountId;
        uint256 created;
        uint256 nonce;
    }

    bytes32 public constant SUBMITTER_ROLE = keccak256("SUBMITTER_ROLE");
    bytes32 public constant BROKER_SIGNER_ROLE = keccak256("BROKER_SIGNER_ROLE");
    bytes32 public constant PAUSER_ROLE = keccak256("PAUSER_ROLE");
    bytes32 public constant MINT_REQUEST_TYPEHASH = keccak256(
        "MintRequest(string tokenizationRequestId,string underlyingSymbol,string tokenSymbol,uint256 qty,address wallet,string network,string clientAccountId,uint256 created,uint256 nonce)"
    );
    /// @notice Token base units (18 decimals) per unit of `qty` (9 decimals).
    uint256 public constant QTY_SCALE = 1e9;

    IIdentityRegistry public immutable registry;
    mapping(bytes32 requestIdHash => bool) public tokenizationRequestProcessed;
    mapping(address signer => mapping(uint256 nonce => bool)) public brokerNonceUsed;
    mapping(address token => bool) public isManagedToken;
    /// @notice USD per whole token, 18 decimals; zero when unset.
    mapping(address token => uint256) public referencePrice;
    mapping(bytes32 symbolHash => address token) private _tokenBySymbol;

    event IssuerMint(
        address indexed wallet,
        bytes32 indexed userId,
        address indexed token,
        uint256 amount,
        bytes32 requestIdHash,
        string tokenizationRequestId
    );
    event IssuerRedeem(
        address indexed wallet, bytes32 indexed userId, address indexed token, uint256 amount, uint256 usdNotional
    );
    event TokenSet(string symbol, address indexed token, address indexed previousToken);
    event ReferencePriceSet(address indexed token, uint256 price);

    error ZeroAddress();
    error ZeroAmount();
    error TokenizationRequestAlreadyProcessed(bytes32 requestIdHash);
    error InvalidBrokerSignature();
    error SignerNotBroker(address signer);
    error BrokerNonceUsed(address signer, uint256 nonce);
    error WalletNotRegistered(address wallet);
    error UnknownTokenSymbol(string symbol);
    error UnmanagedToken(address token);
    error TokenPaused(address token);
    error AmountExceedsRequest(uint256 amount, uint256 maxAmount);
    error TokenSymbolMismatch(string symbol, string tokenSymbol);

    /// @param admin Receives DEFAULT_ADMIN_ROLE and PAUSER_ROLE.
    constructor(address admin, IIdentityRegistry registry_) EIP712("TokenizedStockIssuer", "1") {
        if (address(registry_) == address(0)) revert ZeroAddress();
        registry = registry_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(PAUSER_ROLE, admin);
    }

    /// @notice Mints `amount` tokens of `req.tokenSymbol` to `req.wallet`, at most `req.qty` shares'
    /// worth (`req.qty × QTY_SCALE`), once per tokenization request id and per broker nonce.
    function processMint(MintRequest calldata req, bytes calldata brokerSignature, uint256 amount)
        external
        onlyRole(SUBMITTER_ROLE)
        nonReentrant
        whenNotPaused
    {
        bytes32 requestIdHash = keccak256(bytes(req.tokenizationRequestId));
        if (tokenizationRequestProcessed[requestIdHash]) revert TokenizationRequestAlreadyProcessed(requestIdHash);
        address signer = _recoverBroker(req, brokerSignature);
        if (brokerNonceUsed[signer][req.nonce]) revert BrokerNonceUsed(signer, req.nonce);
        bytes32 userId = registry.userIdOf(req.wallet);
        if (userId == bytes32(0)) revert WalletNotRegistered(req.wallet);
        address token = _tokenBySymbol[keccak256(bytes(req.tokenSymbol))];
        if (token == address(0)) revert UnknownTokenSymbol(req.tokenSymbol);
        if (IStockToken(token).paused()) revert TokenPaused(token);
        if (amount == 0) revert ZeroAmount();
        uint256 maxAmount = req.qty * QTY_SCALE;
        if (amount > maxAmount) revert AmountExceedsRequest(amount, maxAmount);

        tokenizationRequestProcessed[requestIdHash] = true;
        brokerNonceUsed[signer][req.nonce] = true;
        IStockToken(token).mint(req.wallet, amount);
        emit IssuerMint(req.wallet, userId, token, amount, requestIdHash, req.tokenizationRequestId);
    }

    /// @notice Hands `amount` of `token` back to the issuer (prior `approve` of this contract); the
    /// tokens are burnt and the issuer delivers the shares off chain to the caller's user.
    function redeem(address token, uint256 amount) external nonReentrant whenNotPaused {
        if (!isManagedToken[token]) revert UnmanagedToken(token);
        if (IStockToken(token).paused()) revert TokenPaused(token);
        if (amount == 0) revert ZeroAmount();
        bytes32 userId = registry.userIdOf(msg.sender);
        if (userId == bytes32(0)) revert WalletNotRegistered(msg.sender);

        IERC20(token).safeTransferFrom(msg.sender, address(this), amount);
        IStockToken(token).burn(amount);
        uint256 usdNotional = Math.mulDiv(amount, referencePrice[token], 1e18);
        emit IssuerRedeem(msg.sender, userId, token, amount, usdNotional);
    }

    /// @notice The EIP-712 digest the broker signs.
    function hashMintRequest(MintRequest calldata req) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            bytes.concat(
                abi.encode(
                    MINT_REQUEST_TYPEHASH,
                    keccak256(bytes(req.tokenizationRequestId)),
                    keccak256(bytes(req.underlyingSymbol)),
                    keccak256(bytes(req.tokenSymbol)),
                    req.qty,
                    req.wallet
                ),
                abi.encode(keccak256(bytes(req.network)), keccak256(bytes(req.clientAccountId)), req.created, req.nonce)
            )
        );
        return _hashTypedDataV4(structHash);
    }

    function tokenBySymbol(string calldata symbol) external view returns (address) {
        return _tokenBySymbol[keccak256(bytes(symbol))];
    }

    /// @notice Maps `symbol` to `token` (replacing any previous token for it); `token.symbol()` must be `symbol`.
    function setToken(string calldata symbol, address token) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (token == address(0)) revert ZeroAddress();
        string memory tokenSymbol = IERC20Metadata(token).symbol();
        if (keccak256(bytes(tokenSymbol)) != keccak256(bytes(symbol))) revert TokenSymbolMismatch(symbol, tokenSymbol);
        bytes32 symbolHash = keccak256(bytes(symbol));
        address previous = _tokenBySymbol[symbolHash];
        if (previous != address(0)) isManagedToken[previous] = false;
        _tokenBySymbol[symbolHash] = token;
        isManagedToken[token] = true;
        emit TokenSet(symbol, token, previous);
    }

    function setReferencePrice(address token, uint256 price) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (!isManagedToken[token]) revert UnmanagedToken(token);
        referencePrice[token] = price;
        emit ReferencePriceSet(token, price);
    }

    function pause() external onlyRole(PAUSER_ROLE) {
        _pause();
    }

    function unpause() external onlyRole(PAUSER_ROLE) {
        _unpause();
    }

    function _recoverBroker(MintRequest calldata req, bytes calldata signature) private view returns (address) {
        (address signer, ECDSA.RecoverError recoverError,) = ECDSA.tryRecover(hashMintRequest(req), signature);
        if (recoverError != ECDSA.RecoverError.NoError) revert InvalidBrokerSignature();
        if (!hasRole(BROKER_SIGNER_ROLE, signer)) revert SignerNotBroker(signer);
        return signer;
    }
}
