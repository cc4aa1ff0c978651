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

/// @title TokenManager
/// @notice Executes the attestations the issuer's API signs: a user mints stock tokens against a
/// settlement stablecoin, or redeems them for it, at the price and quantity of a signed `Quote`.
///
/// The quote is EIP-712 typed data under the domain (name "TokenizedStockIssuerTokenManager",
/// version "1", this chain's id, this contract) with the type string of `QUOTE_TYPEHASH`, exactly as
/// `signing/evm.ts` signs it. Price and quantity carry 18 decimals; the cost in USD is
/// `quantity * price / 1e18`, expressed in the settlement token's decimals in a single rounding:
/// up when the user pays (mint), down when the user receives (redeem), so rounding always favours
/// the issuer's books.
///
/// Roles: DEFAULT_ADMIN_ROLE sets the attestation signer, the managed tokens and the settlement
/// tokens; PAUSER_ROLE pauses this contract. Needs MINTER_ROLE and BURNER_ROLE on every managed token.
contract TokenManager is EIP712, AccessControl, Pausable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @notice Field order and types are the EIP-712 type; `side` is 0 for buy (mint), 1 for sell (redeem).
    struct Quote {
        uint256 chainId;
        uint256 attestationId;
        bytes32 userId;
        address asset;
        uint256 price;
        uint256 quantity;
        uint256 expiration;
        uint8 side;
        bytes32 additionalData;
    }

    bytes32 public constant PAUSER_ROLE = keccak256("PAUSER_ROLE");
    bytes32 public constant QUOTE_TYPEHASH = keccak256(
        "Quote(uint256 chainId,uint256 attestationId,bytes32 userId,address asset,uint256 price,uint256 quantity,uint256 expiration,uint8 side,bytes32 additionalData)"
    );
    uint8 public constant SIDE_BUY = 0;
    uint8 public constant SIDE_SELL = 1;

    /// @notice Wallet → user id; a quote is executable only by a wallet of the quoted user.
    IIdentityRegistry public immutable registry;
    /// @notice The key whose EIP-712 signatures this contract honours.
    address public attestationSigner;
    /// @notice The id of the latest execution; ids start at 1 and increase by one per execution.
    uint256 public lastExecutionId;
    mapping(uint256 attestationId => bool) public attestationUsed;
    mapping(address token => bool) public isManagedToken;
    /// @dev 10^(36 - decimals) per supported settlement token: divides quantity × price (36 decimals)
    /// down to the token's base units. Zero means the token is not supported.
    mapping(address token => uint256) private _settlementDivisor;

    /// @notice One executed attestation. Indexed: the execution id, the attestation id (the API
    /// looks an execution up by it) and the user id (a user's history). The caller's wallet is the
    /// transaction's sender.
    event TradeExecuted(
        uint256 indexed executionId,
        uint256 indexed attestationId,
        uint256 chainId,
        bytes32 indexed userId,
        uint8 side,
        address asset,
        uint256 price,
        uint256 quantity,
        uint256 expiration,
        bytes32 additionalData
    );
    event AttestationSignerSet(address indexed previousSigner, address indexed newSigner);
    event ManagedTokenSet(address indexed token, bool managed);
    event SettlementTokenSet(address indexed token, bool supported);

    error ZeroAddress();
    error SideMismatch(uint8 expected, uint8 quoted);
    error WrongChainId(uint256 quoted, uint256 actual);
    error QuoteExpired(uint256 expiration, uint256 blockTimestamp);
    error AttestationAlreadyUsed(uint256 attestationId);
    error InvalidAttestationSignature();
    error UnmanagedToken(address token);
    error TokenPaused(address token);
    error UserIdMismatch(address wallet, bytes32 registeredUserId, bytes32 quotedUserId);
    error UnsupportedSettlementToken(address token);
    error SettlementTokenDecimalsTooLarge(address token, uint8 decimals);
    error DepositAboveMaximum(uint256 cost, uint256 maxDeposit);
    error ReceiveBelowMinimum(uint256 proceeds, uint256 minReceive);
    error InsufficientReserve(address token, uint256 available, uint256 required);

    /// @param admin Receives DEFAULT_ADMIN_ROLE and PAUSER_ROLE.
    constructor(address admin, IIdentityRegistry registry_, address attestationSigner_)
        EIP712("TokenizedStockIssuerTokenManager", "1")
    {
        if (address(registry_) == address(0)) revert ZeroAddress();
        registry = registry_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(PAUSER_ROLE, admin);
        _setAttestationSigner(attestationSigner_);
    }

    /// @notice Pays `quantity × price` (rounded up) in `depositToken`, at most `maxDeposit`, and
    /// receives `quantity` tokens of `quote.asset`. Needs a prior `approve` of the deposit token.
    function mintWithAttestation(
        Quote calldata quote,
        bytes calldata signature,
        address depositToken,
        uint256 maxDeposit
    ) external nonReentrant whenNotPaused returns (uint256 executionId) {
        _checkQuote(quote, signature, SIDE_BUY);
        uint256 cost = Math.mulDiv(quote.quantity, quote.price, _divisorOf(depositToken), Math.Rounding.Ceil);
        if (cost > maxDeposit) revert DepositAboveMaximum(cost, maxDeposit);

        executionId = _recordExecution(quote.attestationId);
        IERC20(depositToken).safeTransferFrom(msg.sender, address(this), cost);
        IStockToken(quote.asset).mint(msg.sender, quote.quantity);
        _emitTradeExecuted(executionId, quote);
    }

    /// @notice Gives `quantity` tokens of `quote.asset` (pulled with a prior `approve`, then burnt)
    /// and receives `quantity × price` (rounded down) in `receiveToken` from this contract's reserve,
    /// at least `minReceive`.
    function redeemWithAttestation(
        Quote calldata quote,
        bytes calldata signature,
        address receiveToken,
        uint256 minReceive
    ) external nonReentrant whenNotPaused returns (uint256 executionId) {
        _checkQuote(quote, signature, SIDE_SELL);
        uint256 proceeds = Math.mulDiv(quote.quantity, quote.price, _divisorOf(receiveToken), Math.Rounding.Floor);
        if (proceeds < minReceive) revert ReceiveBelowMinimum(proceeds, minReceive);
        uint256 reserve = IERC20(receiveToken).balanceOf(address(this));
        if (reserve < proceeds) revert InsufficientReserve(receiveToken, reserve, proceeds);

        executionId = _recordExecution(quote.attestationId);
        IERC20(quote.asset).safeTransferFrom(msg.sender, address(this), quote.quantity);
        IStockToken(quote.asset).burn(quote.quantity);
        IERC20(receiveToken).safeTransfer(msg.sender, proceeds);
        _emitTradeExecuted(executionId, quote);
    }

    /// @notice The EIP-712 digest this contract recovers the attestation signer from.
    function hashQuote(Quote calldata quote) public view returns (bytes32) {
        // Every Quote field is a static 32-byte word, so abi.encode of the struct is its encodeData.
        return _hashTypedDataV4(keccak256(abi.encode(QUOTE_TYPEHASH, quote)));
    }

    function setAttestationSigner(address signer) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _setAttestationSigner(signer);
    }

    function setManagedToken(address token, bool managed) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (token == address(0)) revert ZeroAddress();
        isManagedToken[token] = managed;
        emit ManagedTokenSet(token, managed);
    }

    /// @notice Accepts or stops accepting `token` as the deposit token of mints and the receive token
    /// of redemptions. Its decimals are read once here.
    function setSettlementToken(address token, bool supported) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (token == address(0)) revert ZeroAddress();
        if (supported) {
            uint8 decimals = IERC20Metadata(token).decimals();
            if (decimals > 18) revert SettlementTokenDecimalsTooLarge(token, decimals);
            _settlementDivisor[token] = 10 ** (36 - uint256(decimals));
        } else {
            delete _settlementDivisor[token];
        }
        emit SettlementTokenSet(token, supported);
    }

    function isSettlementToken(address token) external view returns (bool) {
        return _settlementDivisor[token] != 0;
    }

    function pause() external onlyRole(PAUSER_ROLE) {
        _pause();
    }

    function unpause() external onlyRole(PAUSER_ROLE) {
        _unpause();
    }

    function _checkQuote(Quote calldata quote, bytes calldata signature, uint8 side) private view {
        if (quote.side != side) revert SideMismatch(side, quote.side);
        if (quote.chainId != block.chainid) revert WrongChainId(quote.chainId, block.chainid);
        if (quote.expiration < block.timestamp) revert QuoteExpired(quote.expiration, block.timestamp);
        if (attestationUsed[quote.attestationId]) revert AttestationAlreadyUsed(quote.attestationId);
        (address recovered, ECDSA.RecoverError recoverError,) = ECDSA.tryRecover(hashQuote(quote), signature);
        if (recoverError != ECDSA.RecoverError.NoError || recovered != attestationSigner) {
            revert InvalidAttestationSignature();
        }
        if (!isManagedToken[quote.asset]) revert UnmanagedToken(quote.asset);
        if (IStockToken(quote.asset).paused()) revert TokenPaused(quote.asset);
        bytes32 registered = registry.userIdOf(msg.sender);
        if (registered == bytes32(0) || registered != quote.userId) {
            revert UserIdMismatch(msg.sender, registered, quote.userId);
        }
    }

    function _divisorOf(address settlementToken) private view returns (uint256 divisor) {
        divisor = _settlementDivisor[settlementToken];
        if (divisor == 0) revert UnsupportedSettlementToken(settlementToken);
    }

    function _recordExecution(uint256 attestationId) private returns (uint256) {
        attestationUsed[attestationId] = true;
        return ++lastExecutionId;
    }

    function _emitTradeExecuted(uint256 executionId, Quote calldata quote) private {
        emit TradeExecuted(
            executionId,
            quote.attestationId,
            quote.chainId,
            quote.userId,
            quote.side,
            quote.asset,
            quote.price,
            quote.quantity,
            quote.expiration,
            quote.additionalData
        );
    }

    function _setAttestationSigner(address signer) private {
        if (signer == address(0)) revert ZeroAddress();
        emit AttestationSignerSet(attestationSigner, signer);
        attestationSigner = signer;
    }
}
